import type { Config } from '#shared/config/env';
import { decodeCursor, encodeCursor } from '#shared/domain/cursor';
import { DomainError } from '#shared/errors';
import type { Clock } from '#shared/ports/clock';
import type { CursorKey } from '#shared/ports/cursor-key';
import type { ReportFiles } from '#shared/ports/report-files';
import type { ReportStore } from '#shared/ports/report-store';
import { reportFileExtension } from './formats.ts';
import {
  effectiveStatus,
  fileOf,
  type Report,
  type ReportStatus,
  reportContentType,
  reportFileKey,
  reportView,
} from './report.ts';

interface ReadDeps {
  clock: Clock;
  reports: ReportStore;
}

const notFound = (reportId: string) =>
  new DomainError('REPORT_NOT_FOUND', `report ${reportId} does not exist in this organisation`);

async function requireReport(deps: ReadDeps, orgId: string, reportId: string): Promise<Report> {
  const report = await deps.reports.get(orgId, reportId);
  if (!report) throw notFound(reportId);
  return report;
}

export async function getReport(deps: ReadDeps, input: { orgId: string; reportId: string }) {
  return reportView(await requireReport(deps, input.orgId, input.reportId), deps.clock.now());
}

/** Newest first; the cursor is bound to the organisation and the filters. */
export async function listReports(
  deps: ReadDeps & { cursorKey: CursorKey },
  input: { orgId: string; reportType?: string; status?: ReportStatus; limit: number; cursor?: string },
) {
  const binding = ['reports', input.orgId, input.reportType ?? null, input.status ?? null];
  const key = await deps.cursorKey.get();
  const now = deps.clock.now();
  const page = await deps.reports.list(
    input.orgId,
    { reportType: input.reportType, status: input.status, now },
    { limit: input.limit, startKey: decodeCursor(key, input.cursor, binding) },
  );
  return {
    reports: page.items.map((report) => reportView(report, now)),
    nextCursor: encodeCursor(key, page.nextKey, binding),
  };
}

/**
 * A pre-signed URL for a COMPLETED report, valid REPORT_DOWNLOAD_URL_TTL_SECONDS, with a download file name.
 * 409 REPORT_NOT_READY / REPORT_FAILED; 410 REPORT_EXPIRED (decided from expiresAt, whatever S3 still holds).
 */
export async function reportDownload(
  deps: ReadDeps & { config: Pick<Config, 'reports'>; files: ReportFiles },
  input: { orgId: string; reportId: string },
) {
  const report = await requireReport(deps, input.orgId, input.reportId);
  const now = deps.clock.now();
  const status = effectiveStatus(report, now);
  if (status === 'EXPIRED')
    throw new DomainError('REPORT_EXPIRED', `report ${input.reportId} expired at ${report.expiresAt}`);
  if (status === 'FAILED')
    throw new DomainError('REPORT_FAILED', `report ${input.reportId} failed: ${report.error?.code ?? 'INTERNAL'}`);
  if (status !== 'COMPLETED') {
    throw new DomainError('REPORT_NOT_READY', `report ${input.reportId} is ${status}`, { retryAfterSeconds: 5 });
  }
  // A URL never outlives the report: at most until expiresAt (CONTRACT §17), when the sweeper deletes the file.
  const untilExpiry = report.expiresAt
    ? Math.floor((Date.parse(report.expiresAt) - now.getTime()) / 1000)
    : Number.POSITIVE_INFINITY;
  const ttl = Math.max(1, Math.min(deps.config.reports.downloadUrlTtlSeconds, untilExpiry));
  const date = (report.completedAt ?? report.requestedAt).slice(0, 10);
  const { format, compression } = fileOf(report);
  const fileName = `${report.reportType.toLowerCase()}-report-${date}-${report.reportId}.${reportFileExtension(format, compression)}`;
  const url = await deps.files.downloadUrl(
    reportFileKey(report),
    fileName,
    ttl,
    reportContentType(format, compression),
  );
  return { url, expiresAt: new Date(now.getTime() + ttl * 1000).toISOString() };
}
