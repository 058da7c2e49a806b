import { canonicalJson } from './json.ts';
import { RECORD_KINDS, type RecordOf, type ReportType } from './records.ts';

const NEEDS_QUOTES = /[",\r\n]/;
const FORMULA_START = /^[=+\-@\t\r]/;
const NUMBER = /^[+-]?[0-9]+(\.[0-9]+)?$/;

/** The text of one value before the formula guard and quoting (CONTRACT §6 "The file"). */
function textOf(value: unknown, isTime: boolean): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map((item) => textOf(item, isTime)).join(';');
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') {
    if (!isTime) return value;
    // Stored times are already normalised; a time that will not parse is written as it is, not dropped.
    const at = new Date(value);
    return Number.isNaN(at.getTime()) ? value : at.toISOString();
  }
  if (typeof value === 'object') return canonicalJson(value);
  return JSON.stringify(value) ?? '';
}

/**
 * One cell: the text, then the spreadsheet formula guard (a leading `'`, except for a plain number such as
 * `+4915112345678` or `-5`), then RFC 4180 quoting only when the text holds a comma, quote, CR or LF.
 */
export function csvCell(value: unknown, isTime = false): string {
  let text = textOf(value, isTime);
  if (FORMULA_START.test(text) && !NUMBER.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The header row of a report: the §9 field names in order, ending with CRLF. */
export function csvHeader(reportType: ReportType): string {
  return `${RECORD_KINDS[reportType].columns.map((column) => csvCell(column)).join(',')}\r\n`;
}

/** One report row for a record of `reportType`, ending with CRLF; fields outside §9 are not written. */
export function csvRow<T extends ReportType>(reportType: T, record: RecordOf<T>): string {
  const { columns, timeColumns }: { columns: readonly string[]; timeColumns: readonly string[] } =
    RECORD_KINDS[reportType];
  const values = record as Record<string, unknown>;
  return `${columns.map((column) => csvCell(values[column], timeColumns.includes(column))).join(',')}\r\n`;
}
