import { networkWebhookDeps } from '#shared/config/groups';
import { receiveNetworkWebhook } from '#shared/domain/network/receive-webhook';
import { publicApi } from '#shared/http/public-api';
import { ok } from '#shared/http/responses';
import { receiveNetworkWebhook as route } from '#shared/routes/groups';

export const handler = publicApi(route).handler(async ({ rawBodyBytes, headers }) => {
  await receiveNetworkWebhook(networkWebhookDeps(), { body: rawBodyBytes, signature: headers['x-hub-signature-256'] });
  return ok({ received: true });
});
