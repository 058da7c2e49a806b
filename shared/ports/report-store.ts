import type { Report, ReportStatus, StoredReportStatus } from '#shared/domain/reports/report';
import type { Page, PageRequest } from './identity-store.ts';

export type WindowClaim =
  | { claimed: true }
  | { claimed: false; blockingReportId: string; requestedAt: string; active: boolean };

export interface ReportStore {
  /**
   * Claims the (organisation, type) window for `reportId` in one conditional write: it succeeds only when no report
   * of the type was requested within `windowSeconds` and none is still active.
   */
  claimWindow(
    orgId: string,
    reportType: string,
    reportId: string,
    now: Date,
    windowSeconds: number,
  ): Promise<WindowClaim>;
  /** Marks the window's report as no longer active (it stays blocking until the window passes). */
  settleWindow(orgId: string, reportType: string, reportId: string): Promise<void>;
  /** Frees a window claimed by a request that was never stored. */
  releaseWindow(orgId: string, reportType: string, reportId: string): Promise<void>;
  create(report: Report): Promise<void>;
  get(orgId: string, reportId: string): Promise<Report | undefined>;
  /** Newest first. */
  list(
    orgId: string,
    filter: { reportType?: string; status?: ReportStatus; now: Date },
    page: PageRequest,
  ): Promise<Page<Report>>;
  transition(
    orgId: string,
    reportId: string,
    from: StoredReportStatus[],
    to: StoredReportStatus,
    changes: Partial<
      Pick<Report, 'startedAt' | 'completedAt' | 'rowCount' | 'sizeBytes' | 'expiresAt' | 'error' | 'objectKey'>
    > & { now: string },
  ): Promise<Report | undefined>;
  /**
   * Takes the report for one run: PENDING → PROCESSING (startedAt = now), or a PROCESSING report whose lease ran out,
   * in one conditional write, leased until `leaseUntil`. Undefined when it is final, gone, or another run holds it.
   */
  claimRun(orgId: string, reportId: string, now: string, leaseUntil: string): Promise<Report | undefined>;
  /** Ends the lease of a PROCESSING report whose run failed, so that its retry may claim it at once. */
  releaseRun(orgId: string, reportId: string, now: string): Promise<void>;
  /** Counts a re-queueing of a PENDING report, if it is still PENDING and was queued `requeues` times before. */
  markRequeued(orgId: string, reportId: string, requeues: number, now: string): Promise<boolean>;
  markPublished(orgId: string, reportId: string, now: string): Promise<void>;
  listOpen(limit: number): Promise<Report[]>;
  listUnpublished(limit: number): Promise<Report[]>;
}
