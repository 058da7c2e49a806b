import { verificationKeyStore } from '#shared/config/keys';
import { publicApi } from '#shared/http/public-api';
import { ok } from '#shared/http/responses';
import { getJwks as route } from '#shared/routes/foundation';

export const handler = publicApi(route).handler(async () =>
  ok({ keys: await verificationKeyStore().verificationKeys() }, { 'cache-control': 'public, max-age=300' }),
);
