import { webhookListDeps } from '#shared/config/webhooks';
import { listSubscriptions } from '#shared/domain/webhooks/subscriptions';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { listWebhooks as route } from '#shared/routes/webhooks';

export const handler = api(route).handler(async ({ orgId, query }) =>
  ok(await listSubscriptions(webhookListDeps(), { orgId, ...query })),
);
