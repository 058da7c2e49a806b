import * as v from 'valibot';
import { dispatchDeps } from '#shared/config/webhooks';
import { attemptDelivery } from '#shared/domain/webhooks/dispatch';
import { WEBHOOK_SLOW_RECEIVERS_QUEUE } from '#shared/domain/webhooks/subscriptions';
import { sqsConsumer } from '#shared/queue/consumer';

/** One delivery attempt to a slow receiver, in the slow receivers' own pool (CONTRACT §18, issue 35). */
const AttemptMessage = v.object({
  kind: v.literal('attempt'),
  orgId: v.string(),
  webhookId: v.string(),
  deliveryId: v.string(),
});

// An attempt takes its organisation's place in the pool itself, just before it calls the receiver (not a fan-out).
export const handler = sqsConsumer(
  WEBHOOK_SLOW_RECEIVERS_QUEUE,
  AttemptMessage,
  async (message, _count, job) => {
    await attemptDelivery(dispatchDeps(), message, {
      queue: WEBHOOK_SLOW_RECEIVERS_QUEUE,
      admit: job.admit,
      checkShare: job.checkShare,
    });
  },
  { admits: 'outside-calls' },
);
