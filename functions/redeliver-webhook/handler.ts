import { deps } from '#shared/config/deps';
import { redeliver } from '#shared/domain/webhooks/subscriptions';
import { api } from '#shared/http/api';
import { accepted } from '#shared/http/responses';
import { redeliver as route } from '#shared/routes/webhooks';

export const handler = api(route).handler(async ({ orgId, params }) =>
  accepted(await redeliver(deps(), { orgId, ...params })),
);
