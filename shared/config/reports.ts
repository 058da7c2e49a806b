import type { getReport, listReports, reportDownload } from '#shared/domain/reports/read-reports';
import type { requestReport } from '#shared/domain/reports/request-report';
import type { processReportJob } from '#shared/domain/reports/run-report';
import type { sweepReports } from '#shared/domain/reports/sweep-reports';
import type { IdempotencyStore } from '#shared/ports/idempotency-store';
import { accessStatus } from './access.ts';
import { clock, config, ids } from './core.ts';
import { crmStore, limits, reportStore } from './dynamodb.ts';
import { eventPublisher } from './eventbridge.ts';
import { type DepsOf, instance, lazyDeps } from './instances.ts';
import { cursorKey } from './keys.ts';
import { reportFiles } from './s3.ts';
import { jobQueue } from './sqs.ts';

/** POST /reports: the use case and the Idempotency-Key store. */
export function requestReportDeps(): DepsOf<typeof requestReport> & { limits: IdempotencyStore } {
  return instance(requestReportDeps, () =>
    lazyDeps({ config, clock, ids, reports: reportStore, limits, queue: jobQueue }),
  );
}

/** Reading reports and listing them. */
export function reportReadDeps(): DepsOf<typeof getReport> {
  return instance(reportReadDeps, () => lazyDeps({ clock, reports: reportStore }));
}

export function reportListDeps(): DepsOf<typeof listReports> {
  return instance(reportListDeps, () => lazyDeps({ clock, reports: reportStore, cursorKey }));
}

export function reportDownloadDeps(): DepsOf<typeof reportDownload> {
  return instance(reportDownloadDeps, () => lazyDeps({ config, clock, reports: reportStore, files: reportFiles }));
}

export function reportWorkerDeps(): DepsOf<typeof processReportJob> {
  return instance(reportWorkerDeps, () =>
    lazyDeps({
      config,
      clock,
      reports: reportStore,
      crm: crmStore,
      files: reportFiles,
      events: eventPublisher,
    }),
  );
}

export function reportSweeperDeps(): DepsOf<typeof sweepReports> {
  return instance(reportSweeperDeps, () =>
    lazyDeps({
      config,
      clock,
      reports: reportStore,
      events: eventPublisher,
      queue: jobQueue,
      files: reportFiles,
      access: accessStatus,
    }),
  );
}
