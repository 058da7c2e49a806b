import type { ReportSchedule } from '#shared/domain/reports/schedule';
import type { Page, PageRequest } from './identity-store.ts';

export interface ReportScheduleStore {
  /**
   * Stores a new schedule in one of the organisation's `limit` slots (a counter taken with one conditional write, so
   * concurrent creations never pass the limit); false when every slot is taken.
   */
  create(schedule: ReportSchedule, limit: number): Promise<boolean>;
  get(orgId: string, scheduleId: string): Promise<ReportSchedule | undefined>;
  /** Oldest first (by id). */
  list(orgId: string, page: PageRequest): Promise<Page<ReportSchedule>>;
  /**
   * Applies `change` to the schedule as read, in a write conditional on it being unchanged since (read again and
   * retried on a conflict). `change` answers undefined for no change. Undefined when the schedule does not exist.
   * `changed` is false when `change` declined.
   */
  update(
    orgId: string,
    scheduleId: string,
    change: (schedule: ReportSchedule) => Partial<ReportSchedule> | undefined,
  ): Promise<{ schedule: ReportSchedule; changed: boolean } | undefined>;
  /** Deletes it and frees its slot; false when it did not exist. */
  delete(orgId: string, scheduleId: string): Promise<boolean>;
  /** Active schedules due at `now` (pending or next occurrence ≤ now), most overdue first. */
  due(now: Date, limit: number): Promise<ReportSchedule[]>;
}
