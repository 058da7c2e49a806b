import { describe, expect, it } from 'vitest';
import { scheduleKeys } from '#shared/adapters/dynamodb/keys';
import { type ReportSchedule, sweepAt } from '#shared/domain/reports/schedule';

const schedule = (fields: Partial<ReportSchedule>): ReportSchedule =>
  ({ scheduleId: 'rsc_1', organisationId: 'org', status: 'active', ...fields }) as ReportSchedule;

describe("the report-schedule sweeper's due list (CONTRACT §18, issue 35)", () => {
  it('reads a waiting schedule again at its one "not before", whatever it waits for, never before it is due', () => {
    const due = '2026-12-01T09:00:00.000Z';
    const later = '2026-12-01T09:05:00.000Z';
    // The window (a pending occurrence), a suspension or a failure (the next occurrence not claimed): one rule.
    expect(sweepAt(schedule({ pendingRunAt: due, retryAt: later }))).toBe(later);
    expect(sweepAt(schedule({ nextRunAt: due, retryAt: later }))).toBe(later);
    // A "not before" that has passed, or a schedule due later than it, is read when due.
    expect(sweepAt(schedule({ nextRunAt: later, retryAt: due }))).toBe(later);
    expect(sweepAt(schedule({ nextRunAt: due }))).toBe(due);
    expect(sweepAt(schedule({ status: 'paused', retryAt: later }))).toBeUndefined();
  });

  it('orders schedules due at one time by a tie-break that favours no organisation', () => {
    const low = '00000000-0000-4000-8000-000000000000';
    const high = 'ffffffff-ffff-4fff-bfff-ffffffffffff';
    let lowFirst = 0;
    const times = 200;
    for (let minute = 0; minute < times; minute++) {
      const at = new Date(Date.UTC(2026, 11, 1, 9, minute)).toISOString();
      const a = scheduleKeys.due(at, low, 'rsc_low').GSI1SK;
      const b = scheduleKeys.due(at, high, 'rsc_high').GSI1SK;
      // Still ordered by due time first, and still below the sweeper's bound for "due by now".
      expect(a.startsWith(`${at}#`) && b.startsWith(`${at}#`)).toBe(true);
      expect(a < `${at}#~` && b < `${at}#~`).toBe(true);
      if (a < b) lowFirst += 1;
    }
    // By organisation id the low one would come first every time; the tie-break gives each about half.
    expect(lowFirst).toBeGreaterThan(times * 0.3);
    expect(lowFirst).toBeLessThan(times * 0.7);
  });
});
