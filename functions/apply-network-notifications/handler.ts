import * as v from 'valibot';
import { networkNotificationsDeps } from '#shared/config/groups';
import { applyInboxMessage } from '#shared/domain/network/inbox';
import { NETWORK_NOTIFICATIONS_QUEUE } from '#shared/ports/notification-inbox';
import { sqsConsumer } from '#shared/queue/consumer';

/** A notification the network webhook kept, or one organisation's part of it (shared/domain/network/inbox.ts). */
const InboxMessage = v.variant('kind', [
  v.object({ kind: v.literal('notification'), receivedAt: v.optional(v.string()), notification: v.unknown() }),
  v.object({
    kind: v.literal('org-notification'),
    orgId: v.string(),
    receivedAt: v.optional(v.string()),
    notification: v.unknown(),
  }),
]);

export const handler = sqsConsumer(NETWORK_NOTIFICATIONS_QUEUE, InboxMessage, async (message) => {
  await applyInboxMessage(networkNotificationsDeps(), message);
});
