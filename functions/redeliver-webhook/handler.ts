import { redeliverDeps } from '#shared/config/webhooks';
import { redeliver } from '#shared/domain/webhooks/subscriptions';
import { api } from '#shared/http/api';
import { accepted } from '#shared/http/responses';
import { redeliver as route } from '#shared/routes/webhooks';

export const handler = api(route).handler(async ({ orgId, params }) =>
  accepted(await redeliver(redeliverDeps(), { orgId, ...params })),
);
