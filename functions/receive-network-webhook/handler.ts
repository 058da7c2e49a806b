import { deps } from '#shared/config/deps';
import { receiveNetworkWebhook } from '#shared/domain/network/receive-webhook';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { receiveNetworkWebhook as route } from '#shared/routes/groups';

export const handler = api(route).handler(async ({ rawBodyBytes, headers }) => {
  await receiveNetworkWebhook(deps(), { body: rawBodyBytes, signature: headers['x-hub-signature-256'] });
  return ok({ received: true });
});
