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
  /** Stores a new report; false when one with its id exists (a retry of the call that stored it). */
  create(report: Report): Promise<boolean>;
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
      Pick<
        Report,
        'startedAt' | 'completedAt' | 'rowCount' | 'sizeBytes' | 'truncatedCells' | 'expiresAt' | 'error' | 'objectKey'
      >
    > & { now: string },
  ): Promise<Report | undefined>;
  /**
   * Takes the report for one run: PENDING → PROCESSING (startedAt = now), or a PROCESSING report whose lease ran out,
   * in one conditional write, leased to `owner` until `leaseUntil`. Undefined when it is final, gone, or another run
   * holds a live lease.
   */
  claimRun(
    orgId: string,
    reportId: string,
    now: string,
    leaseUntil: string,
    owner: string,
  ): Promise<Report | undefined>;
  /** Extends the lease while `owner` still holds it; false when the run lost it. */
  renewRun(orgId: string, reportId: string, owner: string, leaseUntil: string): Promise<boolean>;
  /** Ends `owner`'s lease at `now` (its run failed), so that a retry may claim the report at once. */
  releaseRun(orgId: string, reportId: string, owner: string, now: string): Promise<void>;
  /**
   * Marks a PROCESSING report whose lease ended at `leaseUntil` as queued again, once per ended lease; false when it
   * was already, or the report moved on.
   */
  markExpiredRunRequeued(orgId: string, reportId: string, leaseUntil: string, now: string): Promise<boolean>;
  /** Counts a re-queueing of a PENDING report, if it is still PENDING and was queued `requeues` times before. */
  markRequeued(orgId: string, reportId: string, requeues: number, now: string): Promise<boolean>;
  markPublished(orgId: string, reportId: string, now: string): Promise<void>;
  listOpen(limit: number): Promise<Report[]>;
  listUnpublished(limit: number): Promise<Report[]>;
  /** Completed reports whose file is past its expiresAt and not yet deleted, soonest expiry first. */
  listExpired(now: string, limit: number): Promise<Report[]>;
  /** Records that the file is gone and takes the report off the expiry list; false when it was already. */
  markFileDeleted(orgId: string, reportId: string, now: string): Promise<boolean>;
}
