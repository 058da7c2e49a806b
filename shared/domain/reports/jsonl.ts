import { LAYOUTS, textOf } from './csv.ts';
import { canonicalJson } from './json.ts';
import type { RecordOf, ReportType } from './records.ts';

/**
 * One JSONL line for a record of `reportType` (CONTRACT §23): an object of the §9 fields in column order, each with
 * its JSON type, then `\n`. Every column is present: an absent optional field is `null`, so every line has the same
 * keys. Times are written as the CSV writes them (`toISOString()`), objects with their keys sorted.
 */
export function jsonlLine<T extends ReportType>(reportType: T, record: RecordOf<T>): string {
  const { columns, isTime } = LAYOUTS[reportType];
  const values = record as Record<string, unknown>;
  let line = '{';
  for (let index = 0; index < columns.length; index++) {
    const value = values[columns[index]!];
    if (index > 0) line += ',';
    line += `"${columns[index]}":`;
    line +=
      isTime[index] && typeof value === 'string' ? JSON.stringify(textOf(value, true)) : canonicalJson(value ?? null);
  }
  return `${line}}\n`;
}
