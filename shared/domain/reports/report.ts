/** A report request and its outcome (CONTRACT §6). PENDING → PROCESSING → COMPLETED | FAILED; COMPLETED → EXPIRED. */
export type StoredReportStatus = 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED';
export type ReportStatus = StoredReportStatus | 'EXPIRED';
export const REPORT_STATUSES: ReportStatus[] = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'EXPIRED'];
export const OPEN_REPORT_STATUSES: StoredReportStatus[] = ['PENDING', 'PROCESSING'];

export interface Report {
  reportId: string;
  organisationId: string;
  reportType: string;
  status: StoredReportStatus;
  filters: Record<string, unknown>;
  requestedAt: string;
  requestedBy: string;
  /** The report schedule that requested it (CONTRACT §23); absent for a report requested by hand. */
  scheduleId?: string;
  startedAt?: string;
  completedAt?: string;
  rowCount?: number;
  sizeBytes?: number;
  format: 'text/csv';
  expiresAt?: string;
  error?: { code: string; message: string };
  /** Internal: where the file is, and when the final state was announced. */
  objectKey?: string;
  publishedAt?: string;
  /** Internal: when the sweeper deleted the file, at or after expiresAt. */
  fileDeletedAt?: string;
  /** Internal: the run holding the report PROCESSING (and renewing its lease) may run until then. */
  leaseUntil?: string;
  leaseOwner?: string;
  /** Internal: how often, and when last, the sweeper queued a PENDING report again. */
  requeues?: number;
  requeuedAt?: string;
}

/** EXPIRED is derived when reading: retention is decided from the stored expiresAt, never from S3 or TTL. */
export function effectiveStatus(report: Report, now: Date): ReportStatus {
  if (report.status === 'COMPLETED' && report.expiresAt && Date.parse(report.expiresAt) <= now.getTime())
    return 'EXPIRED';
  return report.status;
}

export function reportView(report: Report, now: Date) {
  const { objectKey, publishedAt, leaseUntil, leaseOwner, requeues, requeuedAt, fileDeletedAt, ...view } = report;
  return { ...view, status: effectiveStatus(report, now) };
}

/** The S3 key of a report's file: derived only from the organisation and report ids. */
export const reportObjectKey = (orgId: string, reportId: string) => `org/${orgId}/reports/${reportId}.csv`;
/** Every report file's key matches this (an IAM resource pattern: the sweeper may delete these and nothing else). */
export const REPORT_OBJECT_PATTERN = 'org/*/reports/*';
