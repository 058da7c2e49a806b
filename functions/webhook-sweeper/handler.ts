import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { webhookSweeperDeps } from '#shared/config/webhooks';
import { sweepDueDeliveries } from '#shared/domain/webhooks/dispatch';
import { logger } from '#shared/observability/logger';

export const handler = middy<ScheduledEvent>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async () => {
    await sweepDueDeliveries(webhookSweeperDeps());
  });
