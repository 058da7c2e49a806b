import * as v from 'valibot';
import { dispatchDeps } from '#shared/config/webhooks';
import { dispatchMessage } from '#shared/domain/webhooks/dispatch';
import { sqsConsumer } from '#shared/queue/consumer';

/** Either a domain event from the bus rule, or one delivery attempt. */
const DispatchMessage = v.union([
  v.object({ kind: v.literal('attempt'), orgId: v.string(), webhookId: v.string(), deliveryId: v.string() }),
  v.looseObject({ 'detail-type': v.string(), detail: v.looseObject({}) }),
]);

export const handler = sqsConsumer('webhook-deliveries', DispatchMessage, async (message) => {
  await dispatchMessage(dispatchDeps(), message);
});
