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
import {
  NETWORK_NOTIFICATION_UNREADABLE,
  type NotificationItem,
  readNotification,
  type UnreadableItem,
} from './notification.ts';
import { chatsOfNumber } from './number-scope.ts';

type Deps = ApplyGroupCreateDeps & NetworkUpdateDeps & GroupLifecycleDeps;

/** The group types each group field carries; any other type in that field is an item we cannot understand. */
const GROUP_TYPES: Record<string, readonly string[]> = {
  group_lifecycle_update: ['group_create', 'group_delete'],
  group_settings_update: ['group_settings_update'],
  group_status_update: ['group_suspend', 'group_suspend_cleared'],
  group_participants_update: [
    'group_participants_add',
    'group_participants_remove',
    'group_join_request_created',
    'group_join_request_revoked',
  ],
};

/**
 * Applies one verified Meta webhook notification (CONTRACT §5, §16).
 * 1. Read every item of the batch on its own (notification.ts); an unreadable item is skipped and logged once as
 *    the `NETWORK_NOTIFICATION_UNREADABLE` alert (names and reason only, no personal data).
 * 2. Apply every readable item, each seeing only the chats of its own `metadata.phone_number_id` (number-scope.ts).
 * Every step is idempotent, so a replay changes nothing; anything that cannot be stored throws, and the webhook
 * answers 5xx so Meta retries.
 */
export async function applyNetworkNotification(allDeps: Deps, json: unknown): Promise<void> {
  const { items, unreadable } = readNotification(json);
  for (const item of unreadable) reportUnreadable(item);
  const scoped = new Map<string, Deps>();
  for (const item of items) {
    let deps = scoped.get(item.phoneNumberId);
    if (!deps) {
      deps = scopedToNumber(allDeps, item.phoneNumberId);
      scoped.set(item.phoneNumberId, deps);
    }
    await applyItem(deps, item);
  }
}

async function applyItem(deps: Deps, item: NotificationItem): Promise<void> {
  const { phoneNumberId } = item;
  switch (item.kind) {
    case 'message':
      return applyInboundMessage(deps, item.message);
    case 'status':
      return applyStatus(deps, item.status, phoneNumberId);
    case 'other':
      logger.info('webhook field not handled', { field: item.field });
      return;
  }
  const { group, field } = item;
  if (!GROUP_TYPES[field]?.includes(group.type)) {
    reportUnreadable({ field, type: group.type.slice(0, 64), reason: `type: not a type of ${field}` });
    return;
  }
  switch (group.type) {
    case 'group_create':
      return applyGroupCreateNotification(deps, { phoneNumberId, group });
    case 'group_delete':
      return applyGroupDelete(deps, { phoneNumberId, group });
    case 'group_settings_update':
      return applyGroupSettingsUpdate(deps, { phoneNumberId, group });
    case 'group_suspend':
    case 'group_suspend_cleared':
      return applyGroupSuspension(deps, { phoneNumberId, group });
    default:
      return applyParticipantsUpdate(deps, group);
  }
}

function reportUnreadable(item: UnreadableItem) {
  logger.warn('alert: a network notification item could not be read; skipped, the rest of the batch applied', {
    alert: NETWORK_NOTIFICATION_UNREADABLE,
    ...item,
  });
}

/** The same ports, with the chat store seen through the change's number; the rest still built lazily. */
function scopedToNumber<D extends ApplyGroupCreateDeps & NetworkUpdateDeps>(deps: D, phoneNumberId: string): D {
  const chats = chatsOfNumber(deps.chats, deps.identity, phoneNumberId);
  return Object.create(deps, { chats: { value: chats, enumerable: true } }) as D;
}
