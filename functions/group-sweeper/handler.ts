import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { groupSweeperDeps } from '#shared/config/groups';
import { sweepGroupRequests } from '#shared/domain/groups/sweep-group-requests';
import { logger } from '#shared/observability/logger';

export const handler = middy<ScheduledEvent>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async () => {
    await sweepGroupRequests(groupSweeperDeps());
  });
