import type { Config } from '#shared/config/env';
import { decodeCursor, encodeCursor } from '#shared/domain/cursor';
import { DomainError } from '#shared/errors';
import type { Clock } from '#shared/ports/clock';
import type { CursorKey } from '#shared/ports/cursor-key';
import type { IdGenerator } from '#shared/ports/ids';
import type { ReportScheduleStore } from '#shared/ports/report-schedule-store';
import { parseScheduleFilters } from '#shared/schemas/report-schedules';
import type { ReportCompression, ReportFormat } from './formats.ts';
import type { ReportType } from './records.ts';
import { nextRunAfter, type ReportSchedule, type ScheduleStatus, scheduleView } from './schedule.ts';
import type { ScheduleTiming } from './schedule-time.ts';

export interface ReportScheduleDeps {
  config: Pick<Config, 'reportSchedules'>;
  clock: Clock;
  ids: IdGenerator;
  schedules: ReportScheduleStore;
}

export const scheduleNotFound = (scheduleId: string) =>
  new DomainError('SCHEDULE_NOT_FOUND', `report schedule ${scheduleId} does not exist in this organisation`);

/**
 * Creates a report schedule (CONTRACT §23).
 * 1. Compute its first occurrence after now.
 * 2. Store it active, under `scheduleId` when given (the Idempotency-Key's reserved id: a retry after a failure finds
 *    the schedule the failed attempt stored and answers it), in one of the organisation's REPORT_SCHEDULE_LIMIT slots
 *    (422 SCHEDULE_LIMIT_REACHED).
 */
export async function createReportSchedule(
  deps: ReportScheduleDeps,
  input: {
    orgId: string;
    scheduleId?: string;
    createdBy: string;
    reportType: string;
    filters: Record<string, unknown>;
    schedule: ScheduleTiming;
    period?: 'previous';
    format?: ReportFormat;
    compression?: ReportCompression;
  },
) {
  const now = deps.clock.now();
  const schedule: ReportSchedule = {
    scheduleId: input.scheduleId ?? deps.ids.next('rsc'),
    organisationId: input.orgId,
    reportType: input.reportType as ReportType,
    filters: input.filters,
    format: input.format,
    compression: input.compression,
    schedule: input.schedule,
    period: input.period,
    status: 'active',
    nextRunAt: nextRunAfter(input.schedule, now),
    createdBy: input.createdBy,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
  const limit = deps.config.reportSchedules.limit;
  const stored = await deps.schedules.create(schedule, limit, now);
  if (!stored) {
    throw new DomainError('SCHEDULE_LIMIT_REACHED', `an organisation can have at most ${limit} report schedules`, {
      extensions: { limit },
    });
  }
  return scheduleView(stored);
}

export async function getReportSchedule(
  deps: Pick<ReportScheduleDeps, 'schedules'>,
  input: { orgId: string; scheduleId: string },
) {
  const schedule = await deps.schedules.get(input.orgId, input.scheduleId);
  if (!schedule) throw scheduleNotFound(input.scheduleId);
  return scheduleView(schedule);
}

export async function listReportSchedules(
  deps: Pick<ReportScheduleDeps, 'schedules'> & { cursorKey: CursorKey },
  input: { orgId: string; limit: number; cursor?: string },
) {
  const binding = ['report-schedules', input.orgId];
  const key = await deps.cursorKey.get();
  const page = await deps.schedules.list(input.orgId, {
    limit: input.limit,
    startKey: decodeCursor(key, input.cursor, binding),
  });
  return { schedules: page.items.map(scheduleView), nextCursor: encodeCursor(key, page.nextKey, binding) };
}

/**
 * Changes a schedule: its status, timing, filters (checked against its report type: 400 at /filters/…), period, format
 * or compression.
 * - Pausing drops its next occurrence, and an occurrence claimed but still waiting for the 5-minute window: a paused
 *   schedule runs nothing.
 * - Resuming (or a new timing) computes the next occurrence from now: occurrences missed while paused are not replayed.
 * - An occurrence already pending (claimed, waiting for its window) keeps the settings it fell due with
 *   (`pendingRequest`): the change applies from the next one.
 * - A write that keeps losing to concurrent changes answers 409 SCHEDULE_CONFLICT with Retry-After (the store).
 */
export async function updateReportSchedule(
  deps: Pick<ReportScheduleDeps, 'clock' | 'schedules'>,
  input: {
    orgId: string;
    scheduleId: string;
    status?: ScheduleStatus;
    schedule?: ScheduleTiming;
    filters?: Record<string, unknown>;
    period?: 'previous' | null;
    format?: ReportFormat;
    compression?: ReportCompression;
  },
) {
  const now = deps.clock.now();
  const updated = await deps.schedules.update(input.orgId, input.scheduleId, (current) => {
    const period = input.period === null ? undefined : (input.period ?? current.period);
    const filters =
      input.filters !== undefined
        ? parseScheduleFilters(current.reportType, input.filters, period)
        : period
          ? parseScheduleFilters(current.reportType, current.filters, period)
          : current.filters;
    const status = input.status ?? current.status;
    const timing = input.schedule ?? current.schedule;
    const restart = status === 'active' && (current.status === 'paused' || input.schedule !== undefined);
    return {
      filters,
      period,
      schedule: timing,
      status,
      ...(input.format !== undefined ? { format: input.format } : {}),
      ...(input.compression !== undefined ? { compression: input.compression } : {}),
      ...(status === 'paused'
        ? { nextRunAt: undefined, pendingRunAt: undefined, pendingRequest: undefined, retryAt: undefined }
        : {}),
      ...(restart ? { nextRunAt: nextRunAfter(timing, now) } : {}),
      updatedAt: now.toISOString(),
    };
  });
  if (!updated) throw scheduleNotFound(input.scheduleId);
  return scheduleView(updated.schedule);
}

export async function deleteReportSchedule(
  deps: Pick<ReportScheduleDeps, 'schedules'>,
  input: { orgId: string; scheduleId: string },
) {
  if (!(await deps.schedules.delete(input.orgId, input.scheduleId))) throw scheduleNotFound(input.scheduleId);
}
