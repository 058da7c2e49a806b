import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { getHealth as route } from '#shared/routes/foundation';

export const handler = api(route).handler(async () => ok({ status: 'ok' }));
