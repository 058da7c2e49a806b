import { WebhookSender } from '#shared/adapters/webhooks/http-sender';
import type { dispatchMessage, sweepDueDeliveries } from '#shared/domain/webhooks/dispatch';
import { SlotHints } from '#shared/domain/webhooks/lanes';
import type {
  createSubscription,
  deleteSubscription,
  listDeliveries,
  listSubscriptions,
  redeliver,
  rotateSecret,
  updateSubscription,
} from '#shared/domain/webhooks/subscriptions';
import type { sendTestDelivery } from '#shared/domain/webhooks/test-delivery';
import type { WebhookTransport } from '#shared/ports/webhook-transport';
import { clock, config, ids } from './core.ts';
import { limits, webhookStore } from './dynamodb.ts';
import { type DepsOf, instance, lazyDeps } from './instances.ts';
import { cursorKey } from './keys.ts';
import { secretBox } from './secret-box.ts';
import { jobQueue } from './sqs.ts';

/** Customers' webhook URLs over HTTP(S), with the SSRF policy: no SDK client. */
export function webhookTransport(): WebhookTransport {
  return instance(webhookTransport, () => new WebhookSender({ allowPrivate: config().webhooks.allowPrivateTargets }));
}

export function createWebhookDeps(): DepsOf<typeof createSubscription> {
  return instance(createWebhookDeps, () =>
    lazyDeps({ config, clock, ids, webhooks: webhookStore, secretBox, webhookTransport }),
  );
}

export function updateWebhookDeps(): DepsOf<typeof updateSubscription> {
  return instance(updateWebhookDeps, () => lazyDeps({ clock, webhooks: webhookStore, webhookTransport }));
}

export function rotateWebhookSecretDeps(): DepsOf<typeof rotateSecret> {
  return instance(rotateWebhookSecretDeps, () => lazyDeps({ clock, webhooks: webhookStore, secretBox }));
}

/** Deleting: the table only. */
export function webhookReadDeps(): DepsOf<typeof deleteSubscription> {
  return instance(webhookReadDeps, () => lazyDeps({ webhooks: webhookStore }));
}

/** Listing subscriptions and the delivery log: the table, and the key of the cursors. */
export function webhookListDeps(): DepsOf<typeof listSubscriptions> & DepsOf<typeof listDeliveries> {
  return instance(webhookListDeps, () => lazyDeps({ webhooks: webhookStore, cursorKey }));
}

export function redeliverDeps(): DepsOf<typeof redeliver> {
  return instance(redeliverDeps, () => lazyDeps({ config, clock, webhooks: webhookStore, queue: jobQueue, limits }));
}

export function testDeliveryDeps(): DepsOf<typeof sendTestDelivery> {
  return instance(testDeliveryDeps, () =>
    lazyDeps({ config, clock, ids, webhooks: webhookStore, queue: jobQueue, limits }),
  );
}

export function dispatchDeps(): DepsOf<typeof dispatchMessage> {
  return instance(dispatchDeps, () =>
    lazyDeps({
      config,
      clock,
      ids,
      webhooks: webhookStore,
      secretBox,
      webhookTransport,
      queue: jobQueue,
      slotHints,
    }),
  );
}

/** The dispatcher container's slot hints (lanes.ts), one per process. */
function slotHints(): SlotHints {
  return instance(slotHints, () => new SlotHints());
}

export function webhookSweeperDeps(): DepsOf<typeof sweepDueDeliveries> {
  return instance(webhookSweeperDeps, () => lazyDeps({ clock, webhooks: webhookStore, queue: jobQueue }));
}
