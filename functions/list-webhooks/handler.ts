import { deps } from '#shared/config/deps';
import { listSubscriptions } from '#shared/domain/webhooks/subscriptions';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { listWebhooks as route } from '#shared/routes/webhooks';

export const handler = api(route).handler(async ({ orgId, query }) =>
  ok(await listSubscriptions(deps(), { orgId, ...query })),
);
