import { createHash } from 'node:crypto';
import type { ReportCompression, ReportFormat } from './formats.ts';
import type { ReportType } from './records.ts';
import { nextOccurrence, previousPeriod, type ScheduleTiming, zonedDateTime } from './schedule-time.ts';

/**
 * A report schedule (CONTRACT §23): a report request made again at each occurrence of its timing.
 * `nextRunAt` is the next occurrence not yet claimed; `pendingRunAt` an occurrence claimed by the sweeper whose report
 * is not yet requested (it waits for the type's 5-minute window, or a crash interrupted it). The sweeper claims an
 * occurrence by moving `nextRunAt` on from the value it read, in the same conditional write that sets `pendingRunAt`;
 * it clears `pendingRunAt` once the report (whose id is derived from the schedule and the occurrence) is stored. The
 * claim also records the request the occurrence makes (`pendingRequest`: its filters, period applied, format and
 * compression), so that a change made while it waits for the type's window applies from the next occurrence, not to it.
 */
export interface ReportSchedule {
  scheduleId: string;
  organisationId: string;
  reportType: ReportType;
  filters: Record<string, unknown>;
  format?: ReportFormat;
  compression?: ReportCompression;
  schedule: ScheduleTiming;
  period?: 'previous';
  status: ScheduleStatus;
  /** The next occurrence to claim (while active; a paused schedule keeps none). */
  nextRunAt?: string;
  /** The occurrence claimed and not yet requested. */
  pendingRunAt?: string;
  /** What the pending occurrence requests, as the schedule was when it fell due (absent on claims made before). */
  pendingRequest?: OccurrenceRequest;
  /**
   * The schedule's one "not before": while it waits — its pending occurrence for its type's 5-minute window (the
   * window's end), its organisation's suspension, or a failed attempt's backoff — the sweeper does not read it again
   * before this time (its place in the due index). Cleared once an occurrence is requested.
   */
  retryAt?: string;
  lastRunAt?: string;
  lastReportId?: string;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

/** The report request of one occurrence. */
export interface OccurrenceRequest {
  filters: Record<string, unknown>;
  format?: ReportFormat;
  compression?: ReportCompression;
}

export const SCHEDULE_STATUSES = ['active', 'paused'] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

/** When the schedule is due: its pending occurrence, else its next one; never while paused. */
export const dueAt = (schedule: ReportSchedule): string | undefined =>
  schedule.status === 'active' ? (schedule.pendingRunAt ?? schedule.nextRunAt) : undefined;

/**
 * When the sweeper reads the schedule again (its place in the due index): when due, or at its "not before" if that is
 * later, whatever the schedule waits for (its type's window, its organisation's suspension, a failure's backoff).
 * Were a waiting schedule read every minute until then, an organisation's schedules that fall due together and wait
 * would stay at the head of the index, most overdue first, and fill sweep after sweep ahead of every other
 * organisation's: a noisy neighbour of the sweep's batch (CONTRACT §18, issue 35).
 */
export function sweepAt(schedule: ReportSchedule): string | undefined {
  const due = dueAt(schedule);
  return due && schedule.retryAt && schedule.retryAt > due ? schedule.retryAt : due;
}

export function scheduleView(schedule: ReportSchedule) {
  const { pendingRunAt, pendingRequest, retryAt, nextRunAt, createdBy, ...view } = schedule;
  return { ...view, nextRunAt: dueAt(schedule) ?? null };
}

export const nextRunAfter = (timing: ScheduleTiming, after: Date) =>
  new Date(nextOccurrence(timing, after.getTime())).toISOString();

/** Each type's date filters (CONTRACT §8): strict (After/Before) or inclusive (OnOrAfter/OnOrBefore). */
export const DATE_FILTERS: Record<ReportType, { from: string; to: string; inclusive: boolean }> = {
  CHAT: { from: 'updatedAfter', to: 'updatedBefore', inclusive: false },
  CONTACT: { from: 'contactCreatedAfter', to: 'contactCreatedBefore', inclusive: false },
  TICKET: { from: 'ticketCreatedAfter', to: 'ticketCreatedBefore', inclusive: false },
  CALL_LOG: { from: 'callInitiatedAfter', to: 'callInitiatedBefore', inclusive: false },
  GOAL: { from: 'goalRecordedAfter', to: 'goalRecordedBefore', inclusive: false },
  BOOKING: { from: 'bookingStartsOnOrAfter', to: 'bookingStartsOnOrBefore', inclusive: true },
  FOLLOW_UPS: { from: 'followUpDueOnOrAfter', to: 'followUpDueOnOrBefore', inclusive: true },
  SURVEY_RESPONSES: { from: 'surveyStartedOnOrAfter', to: 'surveyStartedOnOrBefore', inclusive: true },
  FLOW_RESPONSES: { from: 'flowRespondedOnOrAfter', to: 'flowRespondedOnOrBefore', inclusive: true },
};

/**
 * The date filters of `period: "previous"` for an occurrence: the whole previous local period [start, end) as RFC 3339
 * date-times with the zone's offset. Strict filters get start − 1 ms and end; inclusive ones start and end − 1 ms
 * (record times have millisecond precision), so each record of the period is in exactly one run.
 */
export function periodFilters(
  reportType: ReportType,
  timing: Pick<ScheduleTiming, 'every' | 'timezone'>,
  occurrence: Date,
): Record<string, string> {
  const { startMs, endMs } = previousPeriod(timing.every, occurrence.getTime(), timing.timezone);
  const names = DATE_FILTERS[reportType];
  const [from, to] = names.inclusive ? [startMs, endMs - 1] : [startMs - 1, endMs];
  return { [names.from]: zonedDateTime(from, timing.timezone), [names.to]: zonedDateTime(to, timing.timezone) };
}

/** The filters an occurrence's report is requested with. */
export const occurrenceFilters = (schedule: ReportSchedule, occurrence: Date) =>
  schedule.period === 'previous'
    ? { ...schedule.filters, ...periodFilters(schedule.reportType, schedule.schedule, occurrence) }
    : schedule.filters;

/** The request an occurrence makes with the schedule's settings as they are now (recorded when it is claimed). */
export function occurrenceRequest(schedule: ReportSchedule, occurrence: Date): OccurrenceRequest {
  return {
    filters: occurrenceFilters(schedule, occurrence),
    ...(schedule.format ? { format: schedule.format } : {}),
    ...(schedule.compression ? { compression: schedule.compression } : {}),
  };
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The report id of one occurrence of one schedule: the same on every attempt, so requesting it again (two sweeps, or
 * a crash between the claim and the request) answers the same report instead of making a second. A ULID whose time is
 * the occurrence and whose 80 random bits are a hash of (schedule, occurrence).
 */
export function occurrenceReportId(scheduleId: string, occurrence: Date): string {
  let time = occurrence.getTime();
  let text = '';
  for (let index = 0; index < 10; index++) {
    text = CROCKFORD[time % 32] + text;
    time = Math.floor(time / 32);
  }
  const digest = createHash('sha256')
    .update(`wp-crm/report-schedule/${scheduleId}/${occurrence.toISOString()}`)
    .digest();
  let bits = 0n;
  for (const byte of digest.subarray(0, 10)) bits = (bits << 8n) | BigInt(byte);
  let random = '';
  for (let index = 0; index < 16; index++) {
    random = CROCKFORD[Number(bits & 31n)] + random;
    bits >>= 5n;
  }
  return `rpt_${text}${random}`;
}
