import { webhookListDeps } from '#shared/config/webhooks';
import { listDeliveries } from '#shared/domain/webhooks/subscriptions';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { listDeliveries as route } from '#shared/routes/webhooks';

export const handler = api(route).handler(async ({ orgId, params, query }) =>
  ok(await listDeliveries(webhookListDeps(), { orgId, ...params, ...query })),
);
