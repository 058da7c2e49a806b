import { logger } from '#shared/observability/logger';
import type { JobQueue } from '#shared/ports/job-queue';
import { REPORT_REQUESTS_QUEUE } from './request-report.ts';
import { announceReport, failReport, type RunReportDeps } from './run-report.ts';

const BATCH = 100;
const REQUEUE_AFTER_SECONDS = 60;
const REPUBLISH_AFTER_SECONDS = 30;

/**
 * The report sweeper (scheduled):
 * 1. Reports not finished within REPORT_PROCESSING_TIMEOUT_SECONDS → FAILED / REPORT_TIMEOUT (report.failed).
 * 2. Reports still PENDING after a minute → queued again (the worker is idempotent).
 * 3. Final reports whose event was not published → published and stamped.
 */
export async function sweepReports(
  deps: Pick<RunReportDeps, 'clock' | 'reports' | 'events' | 'config'> & { queue: JobQueue },
) {
  const now = deps.clock.now().getTime();
  const timeoutMs = deps.config.reports.processingTimeoutSeconds * 1000;
  let timedOut = 0;
  let requeued = 0;
  for (const report of await deps.reports.listOpen(BATCH)) {
    const age = now - Date.parse(report.requestedAt);
    if (age >= timeoutMs) {
      const message = `the report did not finish within ${deps.config.reports.processingTimeoutSeconds} s`;
      if (await failReport(deps, report, { code: 'REPORT_TIMEOUT', message })) timedOut += 1;
    } else if (report.status === 'PENDING' && age >= REQUEUE_AFTER_SECONDS * 1000) {
      await deps.queue.send(REPORT_REQUESTS_QUEUE, { orgId: report.organisationId, reportId: report.reportId });
      requeued += 1;
    }
  }
  const unpublished = (await deps.reports.listUnpublished(BATCH)).filter(
    (report) => now - Date.parse(report.completedAt ?? report.requestedAt) >= REPUBLISH_AFTER_SECONDS * 1000,
  );
  for (const report of unpublished) await announceReport(deps, report);
  if (timedOut + requeued + unpublished.length > 0)
    logger.info('report sweep', { timedOut, requeued, republished: unpublished.length });
  return { timedOut, requeued, republished: unpublished.length };
}
