import { LAYOUTS, textOf } from './csv.ts';
import { canonicalJson } from './json.ts';
import type { RecordOf, ReportType } from './records.ts';

/**
 * Line and paragraph separators and NEL, which JSON allows raw inside a string but line readers (Python's
 * `splitlines`, JavaScript before ES2019) take for line ends. They can only be inside strings: JSON has no other
 * place for them.
 */
const LINE_BREAKING = /[\u0085\u2028\u2029]/g;
const escapeLineBreaking = (character: string) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * One JSONL line for a record of `reportType` (CONTRACT §23): an object of the §9 fields in column order, each with
 * its JSON type, then `\n`. Every column is present: an absent optional field is `null`, so every line has the same
 * keys. Times are written as the CSV writes them (`toISOString()`), objects with their keys sorted. U+0085, U+2028
 * and U+2029 are written as `\u` escapes, so that no reader splits a record.
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
  return `${line.replace(LINE_BREAKING, escapeLineBreaking)}}\n`;
}
