import { createWebhookDeps } from '#shared/config/webhooks';
import { createSubscription } from '#shared/domain/webhooks/subscriptions';
import { api } from '#shared/http/api';
import { created, NO_STORE } from '#shared/http/responses';
import { createWebhook as route } from '#shared/routes/webhooks';

export const handler = api(route).handler(async ({ orgId, payload }) => {
  const subscription = await createSubscription(createWebhookDeps(), { orgId, ...payload });
  return created(subscription, `/api/wp-crm/webhooks/${orgId}/${subscription.webhookId}`, NO_STORE);
});
