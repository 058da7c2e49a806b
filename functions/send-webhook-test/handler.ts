import { testDeliveryDeps } from '#shared/config/webhooks';
import { sendTestDelivery } from '#shared/domain/webhooks/test-delivery';
import { api } from '#shared/http/api';
import { accepted } from '#shared/http/responses';
import { sendWebhookTest as route } from '#shared/routes/webhooks';

export const handler = api(route).handler(async ({ orgId, params, payload }) =>
  accepted(await sendTestDelivery(testDeliveryDeps(), { orgId, ...params, ...payload })),
);
