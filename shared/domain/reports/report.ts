import {
  DEFAULT_REPORT_COMPRESSION,
  DEFAULT_REPORT_FORMAT,
  type ReportCompression,
  type ReportFormat,
  type ReportMediaType,
  reportFileExtension,
  reportMediaType,
} from './formats.ts';

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
  /** Cells cut to the format's limit, each with a visible mark (CONTRACT §23: XLSX's 32,767 characters; 0 otherwise). */
  truncatedCells?: number;
  /** The stored file's media type (CONTRACT §23): the format's, or application/gzip. */
  format: ReportMediaType;
  expiresAt?: string;
  error?: { code: string; message: string };
  /** Internal: the requested format and compression (absent on reports stored before §23: csv, none). */
  fileFormat?: ReportFormat;
  compression?: ReportCompression;
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
  const {
    objectKey,
    fileFormat,
    compression,
    publishedAt,
    leaseUntil,
    leaseOwner,
    requeues,
    requeuedAt,
    fileDeletedAt,
    ...view
  } = report;
  return { ...view, status: effectiveStatus(report, now) };
}

/** The format and compression a report's file is written in: csv, uncompressed, for reports stored before §23. */
export function fileOf(report: Pick<Report, 'fileFormat' | 'compression'>) {
  return {
    format: report.fileFormat ?? DEFAULT_REPORT_FORMAT,
    compression: report.compression ?? DEFAULT_REPORT_COMPRESSION,
  };
}

/**
 * The S3 key of a report's file: derived only from the organisation and report ids, and the extension of its format
 * and compression (`.csv`, `.xlsx`, `.jsonl`, then `.gz` when compressed).
 */
export const reportObjectKey = (
  orgId: string,
  reportId: string,
  format: ReportFormat = DEFAULT_REPORT_FORMAT,
  compression: ReportCompression = DEFAULT_REPORT_COMPRESSION,
) => `org/${orgId}/reports/${reportId}.${reportFileExtension(format, compression)}`;

/** Where a stored report's file is: its recorded key, else the key its format gives. */
export const reportFileKey = (report: Report) =>
  report.objectKey ??
  reportObjectKey(report.organisationId, report.reportId, fileOf(report).format, fileOf(report).compression);

/** The Content-Type the file is stored and served with: its media type, with the charset of the text formats. */
export function reportContentType(format: ReportFormat, compression: ReportCompression): string {
  if (compression === 'gzip') return reportMediaType(format, compression);
  return format === 'xlsx'
    ? reportMediaType(format, compression)
    : `${reportMediaType(format, compression)}; charset=utf-8`;
}

/** Every report file's key matches this (an IAM resource pattern: the sweeper may delete these and nothing else). */
export const REPORT_OBJECT_PATTERN = 'org/*/reports/*';
