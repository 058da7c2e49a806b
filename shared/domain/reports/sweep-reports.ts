import { forOrganisation } from '#shared/adapters/aws/tenant-scope';
import type { AccessStatusCache } from '#shared/domain/auth/access-status';
import { logger } from '#shared/observability/logger';
import type { JobQueue } from '#shared/ports/job-queue';
import type { ReportFiles } from '#shared/ports/report-files';
import { type Report, reportFileKey } from './report.ts';
import { REPORT_REQUESTS_QUEUE } from './request-report.ts';
import { announceReport, failReport, type RunReportDeps } from './run-report.ts';

const BATCH = 100;
/** A PENDING report is queued again after a minute, then after 2, 4, 8 … minutes, at most every 15. */
const REQUEUE_AFTER_SECONDS = 60;
const MAX_REQUEUE_INTERVAL_SECONDS = 900;
const REPUBLISH_AFTER_SECONDS = 30;

/**
 * The report sweeper (scheduled):
 * 1. Reports PROCESSING for longer than REPORT_PROCESSING_TIMEOUT_SECONDS since they started → FAILED /
 *    REPORT_TIMEOUT (report.failed). A report waiting in the queue is not timed out: it has not started. One whose
 *    run died (its lease ended) is queued again, and the next run takes it over.
 * 2. PENDING reports are queued again in case their message was lost (stored but not queued), with a growing
 *    interval per report, so that a backlog the workers are still draining does not multiply itself; the worker's
 *    lease makes an extra message harmless.
 * 3. Final reports whose event was not published → published and stamped.
 * 4. Completed reports past expiresAt → their file deleted, then marked deleted (a failed delete is tried again on
 *    the next run; the bucket's lifecycle rule is only the backstop).
 * A suspended organisation's open reports are skipped by 1 and 2 (its work waits, CONTRACT §17); its expired files
 * are still deleted by 4: retention is a promise about the data, not work done for the organisation.
 */
type SweepDeps = Pick<RunReportDeps, 'clock' | 'reports' | 'events' | 'config'> & {
  queue: JobQueue;
  files: ReportFiles;
  access: Pick<AccessStatusCache, 'workStatus'>;
};

export async function sweepReports(deps: SweepDeps) {
  const now = deps.clock.now();
  const timeoutMs = deps.config.reports.processingTimeoutSeconds * 1000;
  let timedOut = 0;
  let requeued = 0;
  for (const listed of await deps.reports.listOpen(BATCH)) {
    // Each report with its organisation's credentials (CONTRACT §25).
    const outcome = await forOrganisation(listed.organisationId, (organisationId) =>
      sweepOpenReport(deps, { ...listed, organisationId }, now, timeoutMs),
    );
    if (outcome === 'timedOut') timedOut += 1;
    if (outcome === 'requeued') requeued += 1;
  }
  const unpublished = (await deps.reports.listUnpublished(BATCH)).filter(
    (report) => now.getTime() - Date.parse(report.completedAt ?? report.requestedAt) >= REPUBLISH_AFTER_SECONDS * 1000,
  );
  for (const listed of unpublished) {
    await forOrganisation(listed.organisationId, (organisationId) =>
      announceReport(deps, { ...listed, organisationId }),
    );
  }
  let deleted = 0;
  for (const listed of await deps.reports.listExpired(now.toISOString(), BATCH)) {
    const gone = await forOrganisation(listed.organisationId, async (organisationId) => {
      const report = { ...listed, organisationId };
      await deps.files.delete(reportFileKey(report));
      return deps.reports.markFileDeleted(report.organisationId, report.reportId, now.toISOString());
    });
    if (gone) deleted += 1;
  }
  if (timedOut + requeued + unpublished.length + deleted > 0)
    logger.info('report sweep', { timedOut, requeued, republished: unpublished.length, deleted });
  return { timedOut, requeued, republished: unpublished.length, deleted };
}

/** One open report: failed past its time, queued again, or left to run. */
async function sweepOpenReport(
  deps: SweepDeps,
  report: Report,
  now: Date,
  timeoutMs: number,
): Promise<'timedOut' | 'requeued' | undefined> {
  // A suspended organisation's reports wait untouched (CONTRACT §17): neither timed out nor queued again; an erased
  // one's are left to its erasure.
  if ((await deps.access.workStatus(report.organisationId)) !== 'active') return undefined;
  if (report.status === 'PROCESSING') {
    const running = now.getTime() - Date.parse(report.startedAt ?? report.requestedAt);
    if (running >= timeoutMs) {
      const message = `the report did not finish within ${deps.config.reports.processingTimeoutSeconds} s`;
      return (await failReport(deps, report, { code: 'REPORT_TIMEOUT', message })) ? 'timedOut' : undefined;
    } else if (
      // The run died (its lease ended unrenewed): queue the report again, once per ended lease.
      report.leaseUntil &&
      Date.parse(report.leaseUntil) <= now.getTime() &&
      (await deps.reports.markExpiredRunRequeued(
        report.organisationId,
        report.reportId,
        report.leaseUntil,
        now.toISOString(),
      ))
    ) {
      await deps.queue.send(REPORT_REQUESTS_QUEUE, { orgId: report.organisationId, reportId: report.reportId });
      return 'requeued';
    }
    return undefined;
  }
  const requeues = report.requeues ?? 0;
  const waitSeconds = Math.min(MAX_REQUEUE_INTERVAL_SECONDS, REQUEUE_AFTER_SECONDS * 2 ** requeues);
  if (now.getTime() - Date.parse(report.requeuedAt ?? report.requestedAt) < waitSeconds * 1000) return undefined;
  if (!(await deps.reports.markRequeued(report.organisationId, report.reportId, requeues, now.toISOString()))) {
    return undefined;
  }
  await deps.queue.send(REPORT_REQUESTS_QUEUE, { orgId: report.organisationId, reportId: report.reportId });
  return 'requeued';
}
