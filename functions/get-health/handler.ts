import { publicApi } from '#shared/http/public-api';
import { ok } from '#shared/http/responses';
import { getHealth as route } from '#shared/routes/foundation';

export const handler = publicApi(route).handler(async () => ok({ status: 'ok' }));
