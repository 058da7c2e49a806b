import { deps } from '#shared/config/deps';
import { rotateSecret } from '#shared/domain/webhooks/subscriptions';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { rotateWebhookSecret as route } from '#shared/routes/webhooks';

export const handler = api(route).handler(async ({ orgId, params }) =>
  ok(await rotateSecret(deps(), { orgId, ...params }), { 'cache-control': 'no-store' }),
);
