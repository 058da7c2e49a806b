import { lazily } from '#shared/lazily';
import { canonicalJson } from './json.ts';
import { RECORD_KINDS, REPORT_TYPES, type RecordOf, type ReportType } from './records.ts';

const NEEDS_QUOTES = /[",\r\n]/;
const NUMBER = /^[+-]?[0-9]+(\.[0-9]+)?$/;
/** The shape every stored time has (records are normalised on import): written as it is, without a round trip. */
const CANONICAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The text of one value before the formula guard and quoting (CONTRACT §6 "The file"); the XLSX text cells' too. */
export function textOf(value: unknown, isTime: boolean): string {
  if (typeof value === 'string') {
    if (!isTime || CANONICAL_TIME.test(value)) return value;
    // A time that will not parse is written as it is, not dropped.
    const at = new Date(value);
    return Number.isNaN(at.getTime()) ? value : at.toISOString();
  }
  if (value === undefined || value === null) return '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return value.map((item) => textOf(item, isTime)).join(';');
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return canonicalJson(value);
  return JSON.stringify(value) ?? '';
}

/** `=`, `+`, `-`, `@`, tab and CR: a spreadsheet would read a cell that starts with one as a formula. */
function startsLikeFormula(text: string): boolean {
  const code = text.charCodeAt(0);
  return code === 61 || code === 43 || code === 45 || code === 64 || code === 9 || code === 13;
}

/**
 * One cell: the text, then the spreadsheet formula guard (a leading `'`, except for a plain number such as
 * `+4915112345678` or `-5`), then RFC 4180 quoting only when the text holds a comma, quote, CR or LF.
 */
export function csvCell(value: unknown, isTime = false): string {
  let text = textOf(value, isTime);
  if (startsLikeFormula(text) && !NUMBER.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The header row of a report: the §9 field names in order, ending with CRLF. */
export function csvHeader(reportType: ReportType): string {
  return `${RECORD_KINDS[reportType].columns.map((column) => csvCell(column)).join(',')}\r\n`;
}

/**
 * Per report type: its columns and which of them hold times (looked up once, not per cell); every format's. Each
 * built when first read, with its kind (RECORD_KINDS).
 */
export const LAYOUTS = lazily(
  Object.fromEntries(
    REPORT_TYPES.map((type) => [
      type,
      () => {
        const { columns, timeColumns }: { columns: readonly string[]; timeColumns: readonly string[] } =
          RECORD_KINDS[type];
        return { columns, isTime: columns.map((column) => timeColumns.includes(column)) };
      },
    ]),
  ) as Record<ReportType, () => { columns: readonly string[]; isTime: boolean[] }>,
);

/** One report row for a record of `reportType`, ending with CRLF; fields outside §9 are not written. */
export function csvRow<T extends ReportType>(reportType: T, record: RecordOf<T>): string {
  const { columns, isTime } = LAYOUTS[reportType];
  const values = record as Record<string, unknown>;
  let row = '';
  for (let index = 0; index < columns.length; index++) {
    if (index > 0) row += ',';
    row += csvCell(values[columns[index]!], isTime[index]);
  }
  return `${row}\r\n`;
}
