import { rotateWebhookSecretDeps } from '#shared/config/webhooks';
import { rotateSecret } from '#shared/domain/webhooks/subscriptions';
import { api } from '#shared/http/api';
import { NO_STORE, ok } from '#shared/http/responses';
import { rotateWebhookSecret as route } from '#shared/routes/webhooks';

export const handler = api(route).handler(async ({ orgId, params }) =>
  ok(await rotateSecret(rotateWebhookSecretDeps(), { orgId, ...params }), NO_STORE),
);
