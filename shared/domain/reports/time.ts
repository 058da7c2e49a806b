/**
 * RFC 3339 parsing for CRM records and report filters (CONTRACT §8, §9). `Date.parse` is not used to validate:
 * it accepts `2026-02-30`, other formats and two-digit years, and it silently drops sub-millisecond digits.
 */

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// Only four-digit years in UTC, so every normalised instant has the fixed-width shape that sorts as text.
const MIN_MS = new Date(0).setUTCFullYear(0, 0, 1);
const MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** An instant in milliseconds; `truncated` when the text had digits below the millisecond. */
export interface ParsedInstant {
  ms: number;
  truncated: boolean;
}

function dayStart(year: string, month: string, day: string): number | undefined {
  const [y, m, d] = [Number(year), Number(month), Number(day)];
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
  if (days === undefined || d < 1 || d > days) return undefined;
  // Date.UTC maps years 0–99 to 1900–1999; setUTCFullYear does not.
  return new Date(0).setUTCFullYear(y, m - 1, d);
}

const inRange = (ms: number) => ms >= MIN_MS && ms <= MAX_MS;

/** An RFC 3339 date-time with `Z` or an offset (leap seconds are refused: no JavaScript Date can hold one). */
export function parseDateTime(text: string): ParsedInstant | undefined {
  const match = DATE_TIME.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, fraction = '', sign, offsetHour, offsetMinute] = match;
  const start = dayStart(year!, month!, day!);
  const [h, min, s] = [Number(hour), Number(minute), Number(second)];
  if (start === undefined || h > 23 || min > 59 || s > 59) return undefined;
  let offset = 0;
  if (sign) {
    const [oh, om] = [Number(offsetHour), Number(offsetMinute)];
    if (oh > 23 || om > 59) return undefined;
    offset = (sign === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  const ms = start + ((h * 60 + min) * 60 + s) * 1000 + Number(fraction.slice(0, 3).padEnd(3, '0')) - offset;
  return inRange(ms) ? { ms, truncated: /[1-9]/.test(fraction.slice(3)) } : undefined;
}

/** A bare `YYYY-MM-DD`: midnight UTC at the start of that day. */
export function parseDate(text: string): number | undefined {
  const match = DATE.exec(text);
  return match ? dayStart(match[1]!, match[2]!, match[3]!) : undefined;
}

/** True for what §8 accepts as a date filter: an RFC 3339 date-time with `Z` or an offset, or a bare date. */
export const isDateFilterText = (text: string): boolean =>
  parseDateTime(text) !== undefined || parseDate(text) !== undefined;

/** The instant of an RFC 3339 date-time or a bare date (midnight UTC), in milliseconds. */
export function instantOf(text: string): number | undefined {
  return parseDateTime(text)?.ms ?? parseDate(text);
}

/** `2026-11-30T08:00:00.000Z`: the stored form of every record time, so stored times sort as text. */
export const isoOf = (ms: number): string => new Date(ms).toISOString();

/** A record time, normalised to UTC with milliseconds; undefined when it is not an RFC 3339 date-time. */
export function normaliseDateTime(text: string): string | undefined {
  const parsed = parseDateTime(text);
  return parsed && isoOf(parsed.ms);
}
