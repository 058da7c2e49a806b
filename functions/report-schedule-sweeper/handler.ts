import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { reportScheduleSweeperDeps } from '#shared/config/report-schedules';
import { runReportSchedules } from '#shared/domain/reports/run-schedules';
import { logger } from '#shared/observability/logger';

export const handler = middy<ScheduledEvent>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async () => {
    await runReportSchedules(reportScheduleSweeperDeps());
  });
