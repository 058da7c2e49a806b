import { type CrmRecord, parseRecordLine, REPORT_TYPES, type ReportType } from '#shared/domain/reports/records';
import type { FieldError } from '#shared/errors';
import type { CrmStore } from '#shared/ports/crm-store';

export interface LineError extends FieldError {
  line: number;
}

/** Records written per store call: bounded memory whatever the file size. */
const WRITE_CHUNK = 500;

/** Parses one JSONL line (1-based number) into a record or its errors. */
export function parseImportLine(text: string, line: number): { record?: CrmRecord; errors: LineError[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { errors: [{ line, pointer: '', message: 'not valid JSON' }] };
  }
  const result = parseRecordLine(value);
  return result.ok
    ? { record: result.record, errors: [] }
    : { errors: result.errors.map((error) => ({ line, ...error })) };
}

/**
 * `wpcrm data import` (CONTRACT §9), in two passes over the lines so memory stays flat:
 * 1. Validate every line; if any is bad, return every error (with its line number) and write nothing.
 * 2. Parse again and upsert in chunks (the store batches and retries unprocessed items).
 */
export async function importRecords(
  deps: { crm: CrmStore },
  input: { orgId: string; lines: () => AsyncIterable<string>; onProgress?: (written: number) => void },
): Promise<
  { ok: true; imported: number; byType: Partial<Record<ReportType, number>> } | { ok: false; errors: LineError[] }
> {
  const errors: LineError[] = [];
  let number = 0;
  for await (const text of input.lines()) {
    number += 1;
    if (text.trim() === '') continue;
    errors.push(...parseImportLine(text, number).errors);
  }
  if (errors.length > 0) return { ok: false, errors };

  const byType: Partial<Record<ReportType, number>> = {};
  let imported = 0;
  let chunk: CrmRecord[] = [];
  const flush = async () => {
    if (chunk.length === 0) return;
    const base = imported;
    await deps.crm.putRecords(input.orgId, chunk, (written) => input.onProgress?.(base + written));
    imported += chunk.length;
    chunk = [];
  };
  number = 0;
  for await (const text of input.lines()) {
    number += 1;
    if (text.trim() === '') continue;
    const { record } = parseImportLine(text, number);
    if (!record) continue;
    byType[record.recordType] = (byType[record.recordType] ?? 0) + 1;
    chunk.push(record);
    if (chunk.length >= WRITE_CHUNK) await flush();
  }
  await flush();
  return {
    ok: true,
    imported,
    byType: Object.fromEntries(REPORT_TYPES.filter((type) => byType[type]).map((type) => [type, byType[type]])),
  };
}
