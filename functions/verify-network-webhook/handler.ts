import { webhookHandshakeDeps } from '#shared/config/groups';
import { verifyWebhookSubscription } from '#shared/domain/network/receive-webhook';
import { publicApi } from '#shared/http/public-api';
import { verifyNetworkWebhook as route } from '#shared/routes/groups';

export const handler = publicApi(route).handler(async ({ query }) => ({
  statusCode: 200,
  headers: { 'content-type': 'text/plain' },
  body: await verifyWebhookSubscription(webhookHandshakeDeps(), query),
}));
