import { deps } from '#shared/config/deps';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { getJwks as route } from '#shared/routes/foundation';

export const handler = api(route).handler(async () =>
  ok({ keys: await deps().keys.verificationKeys() }, { 'cache-control': 'public, max-age=300' }),
);
