import * as v from 'valibot';
import { dispatchDeps } from '#shared/config/webhooks';
import { dispatchMessage } from '#shared/domain/webhooks/dispatch';
import { WEBHOOK_DELIVERIES_QUEUE } from '#shared/domain/webhooks/subscriptions';
import { sqsConsumer } from '#shared/queue/consumer';

const BusEventSchema = v.looseObject({ 'detail-type': v.string(), detail: v.looseObject({}) });

/** A domain event from the bus rule, its fan-out job in the organisation's group, or one delivery attempt. */
const DispatchMessage = v.union([
  v.object({ kind: v.literal('attempt'), orgId: v.string(), webhookId: v.string(), deliveryId: v.string() }),
  v.object({ kind: v.literal('fan-out'), orgId: v.string(), event: BusEventSchema }),
  BusEventSchema,
]);

// An attempt takes its organisation's place in the pool itself, just before it calls the receiver (not a fan-out).
export const handler = sqsConsumer(
  WEBHOOK_DELIVERIES_QUEUE,
  DispatchMessage,
  async (message, _count, job) => {
    await dispatchMessage(dispatchDeps(), message, {
      queue: WEBHOOK_DELIVERIES_QUEUE,
      admit: job.admit,
      checkShare: job.checkShare,
    });
  },
  { admits: 'outside-calls' },
);
