import { describe, expect, it } from 'vitest';
import { occurrenceReportId, periodFilters } from '#shared/domain/reports/schedule';
import {
  isTimeZone,
  nextOccurrence,
  previousPeriod,
  type ScheduleTiming,
  zonedDateTime,
} from '#shared/domain/reports/schedule-time';

/** The next `count` occurrences after `from`, as UTC instants. */
function occurrences(timing: ScheduleTiming, from: string, count: number): string[] {
  const result: string[] = [];
  let at = Date.parse(from);
  for (let index = 0; index < count; index++) {
    at = nextOccurrence(timing, at);
    result.push(new Date(at).toISOString());
  }
  return result;
}

const berlin = (at: string): ScheduleTiming => ({ every: 'day', at, timezone: 'Europe/Berlin' });

describe('report schedule occurrences (CONTRACT §23)', () => {
  it('runs a daily 09:00 Europe/Berlin at 09:00 local across the spring-forward of 29 March 2026', () => {
    expect(occurrences(berlin('09:00'), '2026-03-27T12:00:00Z', 4)).toEqual([
      '2026-03-28T08:00:00.000Z', // CET
      '2026-03-29T07:00:00.000Z', // CEST from 02:00 that night
      '2026-03-30T07:00:00.000Z',
      '2026-03-31T07:00:00.000Z',
    ]);
  });

  it('runs a daily 09:00 Europe/Berlin at 09:00 local across the fall-back of 25 October 2026', () => {
    expect(occurrences(berlin('09:00'), '2026-10-23T12:00:00Z', 4)).toEqual([
      '2026-10-24T07:00:00.000Z', // CEST
      '2026-10-25T08:00:00.000Z', // CET from 03:00 that night
      '2026-10-26T08:00:00.000Z',
      '2026-10-27T08:00:00.000Z',
    ]);
  });

  it('runs a skipped 02:30 at the next valid minute (03:00 CEST) on the spring-forward day', () => {
    const runs = occurrences(berlin('02:30'), '2026-03-27T12:00:00Z', 3);
    expect(runs).toEqual(['2026-03-28T01:30:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z']);
    expect(zonedDateTime(Date.parse(runs[1]!), 'Europe/Berlin')).toBe('2026-03-29T03:00:00+02:00');
  });

  it('runs a repeated 02:30 once, at its first instance (CEST), on the fall-back day', () => {
    const runs = occurrences(berlin('02:30'), '2026-10-24T12:00:00Z', 3);
    expect(runs).toEqual(['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z', '2026-10-27T01:30:00.000Z']);
    // From the first instance, the second (02:30 CET, 01:30Z) is not an occurrence.
    expect(nextOccurrence(berlin('02:30'), Date.parse('2026-10-25T00:30:00Z'))).toBe(
      Date.parse('2026-10-26T01:30:00Z'),
    );
  });

  it('runs at the exact minute: an occurrence is strictly after the instant given', () => {
    expect(occurrences(berlin('09:00'), '2026-11-28T07:59:59.999Z', 1)).toEqual(['2026-11-28T08:00:00.000Z']);
    expect(occurrences(berlin('09:00'), '2026-11-28T08:00:00.000Z', 1)).toEqual(['2026-11-29T08:00:00.000Z']);
  });

  it('runs weekly on its ISO weekday (1 = Monday, 7 = Sunday)', () => {
    const monday = { every: 'week', at: '07:30', timezone: 'Europe/Berlin', dayOfWeek: 1 } as const;
    expect(occurrences(monday, '2026-11-28T12:00:00Z', 2)).toEqual([
      '2026-11-30T06:30:00.000Z',
      '2026-12-07T06:30:00.000Z',
    ]);
    const sunday = { ...monday, dayOfWeek: 7 };
    expect(occurrences(sunday, '2026-03-27T12:00:00Z', 2)).toEqual([
      '2026-03-29T05:30:00.000Z', // the spring-forward Sunday, CEST
      '2026-04-05T05:30:00.000Z',
    ]);
  });

  it('runs monthly on its dayOfMonth, in every month (February included)', () => {
    const timing = { every: 'month', at: '06:00', timezone: 'Europe/Berlin', dayOfMonth: 28 } as const;
    expect(occurrences(timing, '2026-01-29T00:00:00Z', 3)).toEqual([
      '2026-02-28T05:00:00.000Z',
      '2026-03-28T05:00:00.000Z',
      '2026-04-28T04:00:00.000Z',
    ]);
    const first = { ...timing, dayOfMonth: 1, at: '00:00' };
    expect(occurrences(first, '2026-10-15T00:00:00Z', 2)).toEqual([
      '2026-10-31T23:00:00.000Z',
      '2026-11-30T23:00:00.000Z',
    ]);
  });

  it('follows America/New_York (8 March and 1 November 2026)', () => {
    const timing: ScheduleTiming = { every: 'day', at: '02:30', timezone: 'America/New_York' };
    // 02:30 does not exist on 8 March: 03:00 EDT.
    expect(occurrences(timing, '2026-03-07T12:00:00Z', 2)).toEqual([
      '2026-03-08T07:00:00.000Z',
      '2026-03-09T06:30:00.000Z',
    ]);
    // 01:30 happens twice on 1 November: once, at 01:30 EDT.
    const repeated: ScheduleTiming = { ...timing, at: '01:30' };
    expect(occurrences(repeated, '2026-10-31T12:00:00Z', 2)).toEqual([
      '2026-11-01T05:30:00.000Z',
      '2026-11-02T06:30:00.000Z',
    ]);
  });

  it('follows Australia/Sydney (southern hemisphere: 5 April and 4 October 2026)', () => {
    const timing: ScheduleTiming = { every: 'day', at: '02:30', timezone: 'Australia/Sydney' };
    expect(occurrences(timing, '2026-10-02T00:00:00Z', 2)).toEqual([
      '2026-10-02T16:30:00.000Z', // AEST (+10)
      '2026-10-03T16:00:00.000Z', // 02:30 skipped on 4 October: 03:00 AEDT (+11)
    ]);
    expect(occurrences(timing, '2026-04-03T00:00:00Z', 3)).toEqual([
      '2026-04-03T15:30:00.000Z', // AEDT
      '2026-04-04T15:30:00.000Z', // 02:30 twice on 5 April: the first, AEDT
      '2026-04-05T16:30:00.000Z', // AEST
    ]);
  });

  it('tells IANA zones from other text', () => {
    for (const zone of ['Europe/Berlin', 'America/New_York', 'Australia/Sydney', 'UTC', 'Asia/Kolkata']) {
      expect(isTimeZone(zone), zone).toBe(true);
    }
    for (const zone of ['Mars/Olympus', '+01:00', 'CET+1', '', 'Europe/', '../etc']) {
      expect(isTimeZone(zone), zone).toBe(false);
    }
  });
});

describe('period "previous" (CONTRACT §23)', () => {
  const hours = (period: { startMs: number; endMs: number }) => (period.endMs - period.startMs) / 3_600_000;
  const local = (ms: number) => zonedDateTime(ms, 'Europe/Berlin');

  it('is yesterday in the zone: 23 hours after the spring-forward, 25 after the fall-back', () => {
    const spring = previousPeriod('day', Date.parse('2026-03-30T07:00:00Z'), 'Europe/Berlin');
    expect([local(spring.startMs), local(spring.endMs), hours(spring)]).toEqual([
      '2026-03-29T00:00:00+01:00',
      '2026-03-30T00:00:00+02:00',
      23,
    ]);
    const autumn = previousPeriod('day', Date.parse('2026-10-26T08:00:00Z'), 'Europe/Berlin');
    expect([local(autumn.startMs), local(autumn.endMs), hours(autumn)]).toEqual([
      '2026-10-25T00:00:00+02:00',
      '2026-10-26T00:00:00+01:00',
      25,
    ]);
  });

  it('is yesterday in the zone even when it is another day in UTC', () => {
    // 00:30 on 1 December in Berlin is still 30 November in UTC.
    const period = previousPeriod('day', Date.parse('2026-11-30T23:30:00Z'), 'Europe/Berlin');
    expect([local(period.startMs), local(period.endMs)]).toEqual([
      '2026-11-30T00:00:00+01:00',
      '2026-12-01T00:00:00+01:00',
    ]);
  });

  it('is last week Monday–Sunday, and last month', () => {
    const week = previousPeriod('week', Date.parse('2026-03-30T05:30:00Z'), 'Europe/Berlin');
    expect([local(week.startMs), local(week.endMs), hours(week)]).toEqual([
      '2026-03-23T00:00:00+01:00',
      '2026-03-30T00:00:00+02:00',
      167,
    ]);
    // Any day of the week: a Sunday run covers the week before the current one.
    const sunday = previousPeriod('week', Date.parse('2026-11-29T12:00:00Z'), 'Europe/Berlin');
    expect([local(sunday.startMs), local(sunday.endMs)]).toEqual([
      '2026-11-16T00:00:00+01:00',
      '2026-11-23T00:00:00+01:00',
    ]);
    const month = previousPeriod('month', Date.parse('2026-04-01T04:00:00Z'), 'Europe/Berlin');
    expect([local(month.startMs), local(month.endMs), hours(month)]).toEqual([
      '2026-03-01T00:00:00+01:00',
      '2026-04-01T00:00:00+02:00',
      31 * 24 - 1,
    ]);
    const january = previousPeriod('month', Date.parse('2026-01-01T08:00:00Z'), 'America/New_York');
    expect([
      zonedDateTime(january.startMs, 'America/New_York'),
      zonedDateTime(january.endMs, 'America/New_York'),
    ]).toEqual(['2025-12-01T00:00:00-05:00', '2026-01-01T00:00:00-05:00']);
  });

  it("sets the type's date filters: strict ones one millisecond outside, inclusive ones one inside", () => {
    const timing = { every: 'day', timezone: 'Europe/Berlin' } as const;
    const occurrence = new Date('2026-03-30T07:00:00Z');
    expect(periodFilters('CHAT', timing, occurrence)).toEqual({
      updatedAfter: '2026-03-28T23:59:59.999+01:00',
      updatedBefore: '2026-03-30T00:00:00+02:00',
    });
    expect(periodFilters('BOOKING', timing, occurrence)).toEqual({
      bookingStartsOnOrAfter: '2026-03-29T00:00:00+01:00',
      bookingStartsOnOrBefore: '2026-03-29T23:59:59.999+02:00',
    });
    expect(Object.keys(periodFilters('FLOW_RESPONSES', timing, occurrence))).toEqual([
      'flowRespondedOnOrAfter',
      'flowRespondedOnOrBefore',
    ]);
  });
});

describe('occurrence report ids', () => {
  it('are the same for one (schedule, occurrence) and differ otherwise', () => {
    const at = new Date('2026-11-30T06:30:00Z');
    const id = occurrenceReportId('rsc_01M80K2B5D8F1H4K7N0Q3S6V9X', at);
    expect(id).toMatch(/^rpt_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(occurrenceReportId('rsc_01M80K2B5D8F1H4K7N0Q3S6V9X', at)).toBe(id);
    expect(occurrenceReportId('rsc_01M80K2B5D8F1H4K7N0Q3S6V9Y', at)).not.toBe(id);
    expect(occurrenceReportId('rsc_01M80K2B5D8F1H4K7N0Q3S6V9X', new Date(at.getTime() + 86_400_000))).not.toBe(id);
  });
});
