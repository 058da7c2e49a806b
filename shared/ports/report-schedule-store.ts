import type { ReportSchedule } from '#shared/domain/reports/schedule';
import type { Page, PageRequest } from './identity-store.ts';

export interface ReportScheduleStore {
  /**
   * Stores a new schedule in one of the organisation's `limit` slots (taken with one conditional write, so concurrent
   * creations never pass the limit); undefined when every slot is taken — after the slots were checked against the
   * schedules stored, so a slot a crash left behind never refuses. A schedule already stored under the same id (an
   * earlier attempt of an Idempotency-Key) is answered as it is, in its own slot.
   */
  create(schedule: ReportSchedule, limit: number, now: Date): Promise<ReportSchedule | undefined>;
  get(orgId: string, scheduleId: string): Promise<ReportSchedule | undefined>;
  /** Oldest first (by id). */
  list(orgId: string, page: PageRequest): Promise<Page<ReportSchedule>>;
  /**
   * Applies `change` to the schedule as read, in a write conditional on it being unchanged since (read again and
   * retried on a conflict; a change that still loses throws 409 SCHEDULE_CONFLICT with Retry-After). `change` answers
   * undefined for no change. Undefined when the schedule does not exist. `changed` is false when `change` declined.
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
