import { deps } from '#shared/config/deps';
import { verifyWebhookSubscription } from '#shared/domain/network/receive-webhook';
import { api } from '#shared/http/api';
import { verifyNetworkWebhook as route } from '#shared/routes/groups';

export const handler = api(route).handler(async ({ query }) => ({
  statusCode: 200,
  headers: { 'content-type': 'text/plain' },
  body: await verifyWebhookSubscription(deps(), query),
}));
