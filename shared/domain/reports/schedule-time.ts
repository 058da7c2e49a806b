/**
 * When a report schedule runs, and which period `period: "previous"` covers (CONTRACT §23). Wall-clock times in an
 * IANA zone, with Node's own ICU (Intl): no time-zone library.
 *
 * - An occurrence is the schedule's `at` on each matching local date. A local time the zone skips (spring forward)
 *   runs at the next valid minute (02:30 on 29 March 2026 in Europe/Berlin runs at 03:00 CEST); a local time the zone
 *   repeats (fall back) runs once, at its first instance (02:30 CEST on 25 October 2026, not 02:30 CET).
 * - The previous period is whole local days: yesterday, last week Monday–Sunday, last month — 23 or 25 hours long on
 *   the days the clocks change.
 */

export const SCHEDULE_EVERY = ['day', 'week', 'month'] as const;
export type ScheduleEvery = (typeof SCHEDULE_EVERY)[number];

export interface ScheduleTiming {
  every: ScheduleEvery;
  /** `HH:MM`, 24-hour. */
  at: string;
  timezone: string;
  /** ISO weekday, 1 = Monday … 7 = Sunday (weekly only). */
  dayOfWeek?: number;
  /** 1–28 (monthly only). */
  dayOfMonth?: number;
}

const MINUTE = 60_000;
const DAY = 86_400_000;

const formats = new Map<string, Intl.DateTimeFormat>();
function formatOf(timezone: string): Intl.DateTimeFormat {
  let format = formats.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(timezone, format);
  }
  return format;
}

/** True for a time zone name ICU knows (`Europe/Berlin`, `UTC`); an offset such as `+01:00` is not a zone. */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return false;
  try {
    formatOf(name);
    return true;
  } catch {
    return false;
  }
}

/** The wall clock of an instant in the zone, as if it were UTC (milliseconds, seconds kept). */
function wallClock(ms: number, timezone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatOf(timezone).formatToParts(ms)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const wall = new Date(0).setUTCFullYear(parts.year!, parts.month! - 1, parts.day!);
  return wall + ((parts.hour! * 60 + parts.minute!) * 60 + parts.second!) * 1000 + (((ms % 1000) + 1000) % 1000);
}

/** The zone's offset from UTC at the instant, in minutes (Berlin in summer: 120). */
export function offsetMinutes(ms: number, timezone: string): number {
  return Math.round((wallClock(ms, timezone) - ms) / MINUTE);
}

/**
 * The instant of a local wall-clock time (given as if it were UTC): its first instance when the zone repeats it,
 * and the next valid minute (the instant the clocks jumped) when the zone skips it.
 */
export function instantOfWallClock(wall: number, timezone: string): number {
  const offsets = new Set([offsetMinutes(wall - DAY, timezone), offsetMinutes(wall + DAY, timezone)]);
  const candidates = [...offsets]
    .map((offset) => wall - offset * MINUTE)
    .filter((ms) => wallClock(ms, timezone) === wall)
    .sort((a, b) => a - b);
  if (candidates.length > 0) return candidates[0]!;
  // Skipped: the clocks jumped across it. Find the jump between reading it with the later and the earlier offset.
  const [early, late] = [...offsets].map((offset) => wall - offset * MINUTE).sort((a, b) => a - b) as [number, number];
  let [low, high] = [early, late];
  const before = offsetMinutes(low, timezone);
  while (high - low > MINUTE) {
    const middle = low + Math.floor((high - low) / 2 / MINUTE) * MINUTE;
    if (offsetMinutes(middle, timezone) === before) low = middle;
    else high = middle;
  }
  return high;
}

const dayNumber = (ms: number) => Math.floor(ms / DAY);
/** ISO weekday of a day number (day 0, 1970-01-01, was a Thursday). */
const isoWeekday = (day: number) => ((((day + 3) % 7) + 7) % 7) + 1;
const dayOfMonthOf = (day: number) => new Date(day * DAY).getUTCDate();
const minutesOf = (at: string) => {
  const [hour, minute] = at.split(':').map(Number) as [number, number];
  return hour * 60 + minute;
};

function matches(timing: ScheduleTiming, day: number): boolean {
  if (timing.every === 'week') return isoWeekday(day) === timing.dayOfWeek;
  if (timing.every === 'month') return dayOfMonthOf(day) === timing.dayOfMonth;
  return true;
}

/** The first occurrence strictly after `afterMs` (milliseconds). */
export function nextOccurrence(timing: ScheduleTiming, afterMs: number): number {
  const at = minutesOf(timing.at) * MINUTE;
  // From the local day before (a skipped time can move an occurrence forward); a month holds every dayOfMonth ≤ 28.
  const first = dayNumber(wallClock(afterMs, timing.timezone)) - 1;
  for (let day = first; day < first + 64; day++) {
    if (!matches(timing, day)) continue;
    const occurrence = instantOfWallClock(day * DAY + at, timing.timezone);
    if (occurrence > afterMs) return occurrence;
  }
  throw new Error(`no occurrence of ${JSON.stringify(timing)} within 64 days`);
}

/** The local midnight that starts a day (the first valid minute, where a zone skips midnight). */
const startOfDay = (day: number, timezone: string) => instantOfWallClock(day * DAY, timezone);

/**
 * The whole local period before the one holding `occurrenceMs`: yesterday, last week (Monday–Sunday) or last month,
 * as [start, end) in milliseconds.
 */
export function previousPeriod(every: ScheduleEvery, occurrenceMs: number, timezone: string) {
  const today = dayNumber(wallClock(occurrenceMs, timezone));
  let [from, to] = [today - 1, today];
  if (every === 'week') {
    const monday = today - (isoWeekday(today) - 1);
    [from, to] = [monday - 7, monday];
  } else if (every === 'month') {
    const date = new Date(today * DAY);
    const first = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    const previous = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - 1, 1);
    [from, to] = [dayNumber(previous), dayNumber(first)];
  }
  return { startMs: startOfDay(from, timezone), endMs: startOfDay(to, timezone) };
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** An RFC 3339 date-time of the instant with the zone's offset at it: `2026-03-28T00:00:00+01:00`. */
export function zonedDateTime(ms: number, timezone: string): string {
  const offset = offsetMinutes(ms, timezone);
  const wall = new Date(ms + offset * MINUTE);
  const millis = wall.getUTCMilliseconds();
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return (
    `${pad(wall.getUTCFullYear(), 4)}-${pad(wall.getUTCMonth() + 1)}-${pad(wall.getUTCDate())}` +
    `T${pad(wall.getUTCHours())}:${pad(wall.getUTCMinutes())}:${pad(wall.getUTCSeconds())}` +
    `${millis ? `.${pad(millis, 3)}` : ''}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}
