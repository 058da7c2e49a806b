import type { createGroup } from '#shared/domain/groups/create-group';
import type { getCreationStatus } from '#shared/domain/groups/get-creation-status';
import type { processGroupRequest } from '#shared/domain/groups/process-group-request';
import type { sweepGroupRequests } from '#shared/domain/groups/sweep-group-requests';
import type { applyInboxMessage } from '#shared/domain/network/inbox';
import type { receiveNetworkWebhook, verifyWebhookSubscription } from '#shared/domain/network/receive-webhook';
import type { IdempotencyStore } from '#shared/ports/idempotency-store';
import { accessStatus } from './access.ts';
import { clock, config, ids } from './core.ts';
import { chatStore, eventOutbox, groupRequestStore, identityStore, limits } from './dynamodb.ts';
import { eventPublisher } from './eventbridge.ts';
import { type DepsOf, instance, lazyDeps } from './instances.ts';
import { channelCredentials, messagingNetwork, whatsAppSecrets } from './network.ts';
import { jobQueue, notificationInbox } from './sqs.ts';

/** POST /groups: the use case and the Idempotency-Key store. */
export function createGroupDeps(): DepsOf<typeof createGroup> & { limits: IdempotencyStore } {
  return instance(createGroupDeps, () =>
    lazyDeps({
      config,
      clock,
      ids,
      identity: identityStore,
      groups: groupRequestStore,
      limits,
      queue: jobQueue,
    }),
  );
}

export function groupStatusDeps(): DepsOf<typeof getCreationStatus> {
  return instance(groupStatusDeps, () => lazyDeps({ groups: groupRequestStore }));
}

export function groupWorkerDeps(): DepsOf<typeof processGroupRequest> {
  return instance(groupWorkerDeps, () =>
    lazyDeps({
      config,
      clock,
      identity: identityStore,
      groups: groupRequestStore,
      chats: chatStore,
      events: eventPublisher,
      network: messagingNetwork,
      channelCredentials,
    }),
  );
}

export function groupSweeperDeps(): DepsOf<typeof sweepGroupRequests> {
  return instance(groupSweeperDeps, () =>
    lazyDeps({
      config,
      clock,
      groups: groupRequestStore,
      events: eventPublisher,
      queue: jobQueue,
      outbox: eventOutbox,
      identity: identityStore,
      chats: chatStore,
      network: messagingNetwork,
      channelCredentials,
      access: accessStatus,
    }),
  );
}

/** Meta's signed webhook: verifies and keeps; nothing of any organisation (CONTRACT §21). */
export function networkWebhookDeps(): DepsOf<typeof receiveNetworkWebhook> {
  return instance(networkWebhookDeps, () =>
    lazyDeps({ config, clock, whatsappSecrets: whatsAppSecrets, inbox: notificationInbox }),
  );
}

/** The worker that applies what the webhook kept: group confirmations, participants, inbound messages and statuses. */
export function networkNotificationsDeps(): DepsOf<typeof applyInboxMessage> {
  return instance(networkNotificationsDeps, () =>
    lazyDeps({
      config,
      clock,
      ids,
      identity: identityStore,
      groups: groupRequestStore,
      chats: chatStore,
      events: eventPublisher,
      outbox: eventOutbox,
      network: messagingNetwork,
      channelCredentials,
      queue: jobQueue,
    }),
  );
}

export function webhookHandshakeDeps(): DepsOf<typeof verifyWebhookSubscription> {
  return instance(webhookHandshakeDeps, () => lazyDeps({ whatsappSecrets: whatsAppSecrets }));
}
