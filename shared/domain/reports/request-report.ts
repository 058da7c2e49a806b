import type { Config } from '#shared/config/env';
import { DomainError } from '#shared/errors';
import { logger } from '#shared/observability/logger';
import type { Clock } from '#shared/ports/clock';
import type { IdGenerator } from '#shared/ports/ids';
import type { JobQueue } from '#shared/ports/job-queue';
import type { ReportStore } from '#shared/ports/report-store';
import {
  DEFAULT_REPORT_COMPRESSION,
  DEFAULT_REPORT_FORMAT,
  type ReportCompression,
  type ReportFormat,
  reportMediaType,
} from './formats.ts';
import { type Report, reportView } from './report.ts';

export const REPORT_REQUESTS_QUEUE = 'report-requests';

export interface RequestReportDeps {
  config: Pick<Config, 'reports'>;
  clock: Clock;
  ids: IdGenerator;
  reports: ReportStore;
  queue: JobQueue;
}

/**
 * Accepts a report request (CONTRACT §6, §23): by an API caller, or by a report schedule as its own requestedBy.
 * The window is per (organisation, type), whatever the format.
 * 1. Claim the (organisation, type) window with one conditional write: at most one request per window wins,
 *    under any concurrency. Otherwise 409 REPORT_RATE_LIMITED naming the blocking report.
 * 2. Store the report PENDING with its normalised filters, and queue it for the report worker. A request that
 *    could not be stored frees the window again; one stored but not queued is queued by the sweeper.
 * A window held, or a report stored, under the given id is the work of a failed earlier call with the same
 * Idempotency-Key: that report is answered again instead of refused or made twice.
 */
export async function requestReport(
  deps: RequestReportDeps,
  input: {
    orgId: string;
    requestedBy: string;
    reportType: string;
    filters: Record<string, unknown>;
    /** The file's format (CONTRACT §23). @default 'csv' */
    format?: ReportFormat;
    /** @default 'none' */
    compression?: ReportCompression;
    /** The id to create the report under (the Idempotency-Key's reserved id); a new one without. */
    reportId?: string;
    /** The schedule requesting it (CONTRACT §23; its events carry it as schedule_id); none when requested by hand. */
    scheduleId?: string;
  },
) {
  const now = deps.clock.now();
  const format = input.format ?? DEFAULT_REPORT_FORMAT;
  const compression = input.compression ?? DEFAULT_REPORT_COMPRESSION;
  const reportId = input.reportId ?? deps.ids.next('rpt');
  const windowSeconds = deps.config.reports.windowSeconds;
  const claim = await deps.reports.claimWindow(input.orgId, input.reportType, reportId, now, windowSeconds);
  if (!claim.claimed && claim.blockingReportId !== reportId) {
    const windowEndsMs = Date.parse(claim.requestedAt) + windowSeconds * 1000;
    const retryAfterSeconds =
      windowEndsMs > now.getTime() ? Math.ceil((windowEndsMs - now.getTime()) / 1000) : undefined;
    throw new DomainError(
      'REPORT_RATE_LIMITED',
      `a ${input.reportType} report was requested less than ${windowSeconds} s ago or is still running`,
      {
        extensions: { reportId: claim.blockingReportId, retryAfterSeconds: retryAfterSeconds ?? null },
        retryAfterSeconds,
      },
    );
  }
  let report: Report = {
    reportId,
    organisationId: input.orgId,
    reportType: input.reportType,
    status: 'PENDING',
    filters: input.filters,
    requestedAt: now.toISOString(),
    requestedBy: input.requestedBy,
    ...(input.scheduleId ? { scheduleId: input.scheduleId } : {}),
    format: reportMediaType(format, compression),
    fileFormat: format,
    compression,
  };
  let stored: boolean;
  try {
    stored = await deps.reports.create(report);
  } catch (error) {
    if (claim.claimed) await deps.reports.releaseWindow(input.orgId, input.reportType, reportId);
    throw error;
  }
  if (!stored) report = (await deps.reports.get(input.orgId, reportId)) ?? report;
  if (report.status === 'PENDING') {
    try {
      await deps.queue.send(REPORT_REQUESTS_QUEUE, { orgId: input.orgId, reportId });
    } catch (error) {
      logger.error('report stored but not queued; the sweeper will queue it', { reportId, error: error as Error });
    }
  }
  return reportView(report, now);
}
