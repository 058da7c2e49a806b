import { webhookReadDeps } from '#shared/config/webhooks';
import { listDeliveryAttempts } from '#shared/domain/webhooks/subscriptions';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { listDeliveryAttempts as route } from '#shared/routes/webhooks';

export const handler = api(route).handler(async ({ orgId, params }) =>
  ok(await listDeliveryAttempts(webhookReadDeps(), { orgId, ...params })),
);
