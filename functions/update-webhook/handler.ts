import { updateWebhookDeps } from '#shared/config/webhooks';
import { updateSubscription } from '#shared/domain/webhooks/subscriptions';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { updateWebhook as route } from '#shared/routes/webhooks';

export const handler = api(route).handler(async ({ orgId, params, payload }) =>
  ok(await updateSubscription(updateWebhookDeps(), { orgId, ...params, ...payload })),
);
