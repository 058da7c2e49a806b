import { actingFor, forOrganisation } from '#shared/adapters/aws/tenant-scope';
import type { AccessStatusCache } from '#shared/domain/auth/access-status';
import { DomainError } from '#shared/errors';
import { logger } from '#shared/observability/logger';
import type { ReportScheduleStore } from '#shared/ports/report-schedule-store';
import { type RequestReportDeps, requestReport } from './request-report.ts';
import { dueAt, nextRunAfter, occurrenceReportId, occurrenceRequest, type ReportSchedule } from './schedule.ts';

/** Due schedules read per sweep (one Query of the due index, paged), and how many are run at once. */
export const SCHEDULES_PER_SWEEP = 1000;
const CONCURRENCY = 8;
/**
 * A schedule whose organisation is suspended, or whose occurrence failed, is not read again for this long: the work
 * of a suspended organisation waits as its queued jobs do (SUSPENDED_WORK_DELAY_SECONDS), and a failure is tried
 * again by a later sweep, not by every one.
 */
export const WAIT_AFTER_SUSPENDED_OR_FAILED_SECONDS = 300;

export type RunScheduleDeps = RequestReportDeps & {
  schedules: ReportScheduleStore;
  access: Pick<AccessStatusCache, 'workStatus'>;
};

export type OccurrenceOutcome = 'requested' | 'waiting' | 'taken' | 'skipped';

/**
 * The report-schedule sweeper (every minute, CONTRACT §23): runs each due occurrence exactly once.
 * 1. Read the active schedules due now from the due index, most overdue first.
 * 2. For each (a suspended organisation's wait), claim its next occurrence: one conditional write moves `nextRunAt` on
 *    from the value read and records the occurrence as pending, with the request it makes as the schedule is now
 *    (filters, period, format, compression): a change while it waits applies from the next occurrence. A concurrent
 *    sweep that lost the claim leaves it.
 * 3. Request the pending occurrence's report as the caller would (requestedBy and scheduleId: the schedule), under an
 *    id derived from (schedule, occurrence): a second attempt — a concurrent sweep, or the next one after a crash
 *    between 2 and 3 — finds that report instead of making another.
 * 4. Inside the type's 5-minute window (409) the occurrence stays pending and is read again when the window ends
 *    (`retryAt`; each minute when the end is unknown, a report still running); once requested it is cleared
 *    (conditional on still being that occurrence).
 * Occurrences missed while the service was down are each run, oldest first, one per claim: the next one is claimed
 * only after the previous one's report was requested (and so, for one type, one per 5-minute window).
 * A schedule that waits for any reason — the window, its organisation's suspension, a failure — gets one "not before"
 * (`retryAt`), its place in the due index, so it is not read again until then (CONTRACT §18, issue 35).
 */
export async function runReportSchedules(
  deps: RunScheduleDeps,
  { perSweep = SCHEDULES_PER_SWEEP }: { perSweep?: number } = {},
): Promise<Record<OccurrenceOutcome, number>> {
  const now = deps.clock.now();
  const due = await deps.schedules.due(now, perSweep);
  const counts: Record<OccurrenceOutcome, number> = { requested: 0, waiting: 0, taken: 0, skipped: 0 };
  let next = 0;
  const worker = async () => {
    while (next < due.length) {
      const schedule = due[next++]!;
      try {
        // With its organisation's credentials (CONTRACT §25).
        const outcome = await forOrganisation(schedule.organisationId, (organisationId) =>
          runOccurrence(deps, { ...schedule, organisationId }, now),
        );
        counts[outcome] += 1;
      } catch (error) {
        // One schedule's failure (a throttled write) must not hold the others back: it waits a while and is tried again.
        logger.error('report schedule not run; a later sweep tries again', {
          scheduleId: schedule.scheduleId,
          error: error as Error,
        });
        await actingFor(schedule.organisationId, () => waitBeforeReading(deps, schedule, now)).catch(() => undefined);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, due.length) }, worker));
  if (due.length > 0) logger.info('report schedules swept', { due: due.length, ...counts });
  return counts;
}

/** Claims (if need be) and requests one schedule's due occurrence. */
export async function runOccurrence(
  deps: RunScheduleDeps,
  read: ReportSchedule,
  now: Date,
): Promise<OccurrenceOutcome> {
  const status = await deps.access.workStatus(read.organisationId);
  if (status === 'gone') return 'skipped';
  if (status === 'suspended') {
    await waitBeforeReading(deps, read, now);
    return 'skipped';
  }
  let schedule = read;
  if (!schedule.pendingRunAt) {
    const occurrence = schedule.nextRunAt;
    if (schedule.status !== 'active' || !occurrence || Date.parse(occurrence) > now.getTime()) return 'skipped';
    const claim = await deps.schedules.update(schedule.organisationId, schedule.scheduleId, (current) =>
      current.status === 'active' && current.nextRunAt === occurrence && !current.pendingRunAt
        ? {
            pendingRunAt: occurrence,
            pendingRequest: occurrenceRequest(current, new Date(occurrence)),
            nextRunAt: nextRunAfter(current.schedule, new Date(occurrence)),
            retryAt: undefined,
          }
        : undefined,
    );
    if (!claim?.changed) return 'taken';
    schedule = claim.schedule;
  } else {
    // Read from the index (eventually consistent): only an occurrence still pending is requested.
    const current = await deps.schedules.get(schedule.organisationId, schedule.scheduleId);
    if (current?.status !== 'active' || current.pendingRunAt !== schedule.pendingRunAt) return 'taken';
    schedule = current;
  }
  const occurrence = schedule.pendingRunAt!;
  const reportId = occurrenceReportId(schedule.scheduleId, new Date(occurrence));
  // A report already stored under the occurrence's id was requested by an earlier attempt: only the clearing is left.
  if (!(await deps.reports.get(schedule.organisationId, reportId))) {
    // As it fell due; a claim recorded before pendingRequest existed runs with the schedule as it is.
    const request = schedule.pendingRequest ?? occurrenceRequest(schedule, new Date(occurrence));
    try {
      await requestReport(deps, {
        orgId: schedule.organisationId,
        requestedBy: schedule.scheduleId,
        scheduleId: schedule.scheduleId,
        reportType: schedule.reportType,
        filters: request.filters,
        format: request.format,
        compression: request.compression,
        reportId,
      });
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'REPORT_RATE_LIMITED') throw error;
      // Read again when the window ends (sweepAt), not at every sweep until then.
      if (error.retryAfterSeconds !== undefined) {
        const retryAt = new Date(now.getTime() + error.retryAfterSeconds * 1000).toISOString();
        await deps.schedules.update(schedule.organisationId, schedule.scheduleId, (current) =>
          current.pendingRunAt === occurrence && current.retryAt !== retryAt ? { retryAt } : undefined,
        );
      }
      return 'waiting';
    }
  }
  // Whoever clears the occurrence counts it; a concurrent attempt that found the same report answers `taken`.
  const cleared = await deps.schedules.update(schedule.organisationId, schedule.scheduleId, (current) =>
    current.pendingRunAt === occurrence
      ? {
          pendingRunAt: undefined,
          pendingRequest: undefined,
          retryAt: undefined,
          lastRunAt: occurrence,
          lastReportId: reportId,
        }
      : undefined,
  );
  return cleared?.changed ? 'requested' : 'taken';
}

/**
 * Not read again for a while (a suspension, a failure): the schedule's "not before" moves on, unless it was changed
 * meanwhile (its due time) or already waits longer.
 */
async function waitBeforeReading(deps: RunScheduleDeps, read: ReportSchedule, now: Date): Promise<void> {
  const retryAt = new Date(now.getTime() + WAIT_AFTER_SUSPENDED_OR_FAILED_SECONDS * 1000).toISOString();
  await deps.schedules.update(read.organisationId, read.scheduleId, (current) =>
    dueAt(current) === dueAt(read) && (current.retryAt ?? '') < retryAt ? { retryAt } : undefined,
  );
}
