import {
  applyInboundMessage,
  applyParticipantsUpdate,
  applyStatus,
  type NetworkUpdateDeps,
} from '#shared/domain/chats/network-updates';
import { type ApplyGroupCreateDeps, applyGroupCreateNotification } from '#shared/domain/groups/apply-group-create';
import {
  applyGroupDelete,
  applyGroupSettingsUpdate,
  applyGroupSuspension,
  type GroupLifecycleDeps,
} from '#shared/domain/groups/apply-group-lifecycle';
import { logger } from '#shared/observability/logger';
import type { Notification } from './notification.ts';
import { chatsOfNumber } from './number-scope.ts';

/**
 * Applies one verified Meta webhook notification (batched entries and changes). Every step is idempotent, so a
 * replay changes nothing; anything that cannot be stored throws, and the webhook answers 5xx so Meta retries.
 * Each change sees only the chats of its own `metadata.phone_number_id` (number-scope.ts).
 */
export async function applyNetworkNotification(
  allDeps: ApplyGroupCreateDeps & NetworkUpdateDeps & GroupLifecycleDeps,
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
            else if (group.type === 'group_delete') await applyGroupDelete(deps, { phoneNumberId, group });
          }
          break;
        case 'group_settings_update':
          for (const group of change.value.groups ?? []) {
            await applyGroupSettingsUpdate(deps, { phoneNumberId, group });
          }
          break;
        case 'group_status_update':
          for (const group of change.value.groups ?? []) {
            if (group.type === 'group_suspend' || group.type === 'group_suspend_cleared') {
              await applyGroupSuspension(deps, { phoneNumberId, group });
            } else logger.info('group status type not handled', { type: group.type });
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

/** The same ports, with the chat store seen through the change's number; the rest still built lazily. */
function scopedToNumber<D extends ApplyGroupCreateDeps & NetworkUpdateDeps>(deps: D, phoneNumberId: string): D {
  const chats = chatsOfNumber(deps.chats, deps.identity, phoneNumberId);
  return Object.create(deps, { chats: { value: chats, enumerable: true } }) as D;
}
