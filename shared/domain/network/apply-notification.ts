import {
  applyInboundMessage,
  applyParticipantsUpdate,
  applyStatus,
  type NetworkUpdateDeps,
} from '#shared/domain/chats/network-updates';
import { type ApplyGroupCreateDeps, applyGroupCreateNotification } from '#shared/domain/groups/apply-group-create';
import { logger } from '#shared/observability/logger';
import type { Notification } from './notification.ts';
import { chatsOfNumber } from './number-scope.ts';

/**
 * Applies one verified Meta webhook notification (batched entries and changes). Every step is idempotent, so a
 * replay changes nothing; anything that cannot be stored throws, and the webhook answers 5xx so Meta retries.
 * Each change sees only the chats of its own `metadata.phone_number_id` (number-scope.ts).
 */
export async function applyNetworkNotification(
  allDeps: ApplyGroupCreateDeps & NetworkUpdateDeps,
  notification: Notification,
): Promise<void> {
  for (const entry of notification.entry) {
    for (const change of entry.changes) {
      const phoneNumberId = change.value.metadata?.phone_number_id ?? '';
      const deps = scopedToNumber(allDeps, phoneNumberId);
      switch (change.field) {
        case 'group_lifecycle_update':
          for (const group of change.value.groups ?? []) {
            if (group.type === 'group_create') await applyGroupCreateNotification(deps, { phoneNumberId, group });
            else if (group.type === 'group_delete' && group.group_id) await archiveDeletedGroup(deps, group.group_id);
          }
          break;
        case 'group_participants_update':
          for (const group of change.value.groups ?? []) await applyParticipantsUpdate(deps, group);
          break;
        case 'messages':
          for (const message of change.value.messages ?? []) await applyInboundMessage(deps, message);
          for (const status of change.value.statuses ?? []) await applyStatus(deps, status);
          break;
        default:
          logger.info('webhook field not handled', { field: change.field });
      }
    }
  }
}

async function archiveDeletedGroup(deps: ApplyGroupCreateDeps, groupId: string) {
  const link = await deps.chats.findExternalChat(groupId);
  if (!link) return;
  await deps.chats.updateChat(link.orgId, link.chatId, (chat) =>
    chat.isArchived ? undefined : { isArchived: true, updatedAt: deps.clock.now().toISOString() },
  );
}

/** The same ports, with the chat store seen through the change's number; the rest still built lazily. */
function scopedToNumber<D extends ApplyGroupCreateDeps & NetworkUpdateDeps>(deps: D, phoneNumberId: string): D {
  const chats = chatsOfNumber(deps.chats, deps.identity, phoneNumberId);
  return Object.create(deps, { chats: { value: chats, enumerable: true } }) as D;
}
