import type {
  createReportSchedule,
  deleteReportSchedule,
  getReportSchedule,
  listReportSchedules,
  updateReportSchedule,
} from '#shared/domain/reports/report-schedules';
import type { runReportSchedules } from '#shared/domain/reports/run-schedules';
import type { IdempotencyStore } from '#shared/ports/idempotency-store';
import { accessStatus } from './access.ts';
import { clock, config, ids } from './core.ts';
import { limits, reportScheduleStore, reportStore } from './dynamodb.ts';
import { type DepsOf, instance, lazyDeps } from './instances.ts';
import { cursorKey } from './keys.ts';
import { jobQueue } from './sqs.ts';

/** POST /report-schedules, under its Idempotency-Key (CONTRACT §4). */
export function createReportScheduleDeps(): DepsOf<typeof createReportSchedule> & { limits: IdempotencyStore } {
  return instance(createReportScheduleDeps, () =>
    lazyDeps({ config, clock, ids, schedules: reportScheduleStore, limits }),
  );
}

export function listReportSchedulesDeps(): DepsOf<typeof listReportSchedules> {
  return instance(listReportSchedulesDeps, () => lazyDeps({ schedules: reportScheduleStore, cursorKey }));
}

/** Reading one schedule, and deleting it. */
export function reportScheduleDeps(): DepsOf<typeof getReportSchedule> & DepsOf<typeof deleteReportSchedule> {
  return instance(reportScheduleDeps, () => lazyDeps({ schedules: reportScheduleStore }));
}

export function updateReportScheduleDeps(): DepsOf<typeof updateReportSchedule> {
  return instance(updateReportScheduleDeps, () => lazyDeps({ clock, schedules: reportScheduleStore }));
}

/** The sweeper: the schedules, and everything a report request needs. */
export function reportScheduleSweeperDeps(): DepsOf<typeof runReportSchedules> {
  return instance(reportScheduleSweeperDeps, () =>
    lazyDeps({
      config,
      clock,
      ids,
      reports: reportStore,
      queue: jobQueue,
      schedules: reportScheduleStore,
      access: accessStatus,
    }),
  );
}
