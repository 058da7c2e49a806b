import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { reportSweeperDeps } from '#shared/config/reports';
import { sweepReports } from '#shared/domain/reports/sweep-reports';
import { logger } from '#shared/observability/logger';

export const handler = middy<ScheduledEvent>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async () => {
    await sweepReports(reportSweeperDeps());
  });
