import { webhookReadDeps } from '#shared/config/webhooks';
import { deleteSubscription } from '#shared/domain/webhooks/subscriptions';
import { api } from '#shared/http/api';
import { noContent } from '#shared/http/responses';
import { deleteWebhook as route } from '#shared/routes/webhooks';

export const handler = api(route).handler(async ({ orgId, params }) => {
  await deleteSubscription(webhookReadDeps(), { orgId, ...params });
  return noContent();
});
