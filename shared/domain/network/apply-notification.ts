import {
  applyInboundMessage,
  applyParticipantsUpdate,
  applyStatus,
  type NetworkUpdateDeps,
  reportedFor,
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
  type GroupEvent,
  NETWORK_NOTIFICATION_UNREADABLE,
  type NotificationItem,
  readNotification,
  safeName,
  type UnreadableItem,
} from './notification.ts';
import { chatsOfNumber } from './number-scope.ts';

type Deps = ApplyGroupCreateDeps & NetworkUpdateDeps & GroupLifecycleDeps;

/** The group types each group field carries. */
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
const KNOWN_TYPES = new Set(Object.values(GROUP_TYPES).flat());

/**
 * What a group object is, when its type is not one of its field's (CONTRACT §16): under the participants field its
 * lists say it (Meta's OpenAPI example of a removal is typed `group_create` and lists `removed_participants`); a type
 * of another field is read as that type. Anything else cannot be understood.
 */
function groupTypeOf(field: string, group: GroupEvent): string | undefined {
  if (GROUP_TYPES[field]?.includes(group.type)) return group.type;
  if (field === 'group_participants_update') {
    if (group.removed_participants || group.failed_participants) return 'group_participants_remove';
    if (group.added_participants) return 'group_participants_add';
  }
  return KNOWN_TYPES.has(group.type) ? group.type : undefined;
}

/**
 * Applies one verified Meta webhook notification (CONTRACT §5, §16).
 * 1. Read every item of the batch on its own (notification.ts); an unreadable item is skipped and logged once as
 *    the `NETWORK_NOTIFICATION_UNREADABLE` alert (names and reason only, no personal data).
 * 2. Apply every readable item by its type (`groupTypeOf`), each seeing only the chats of its own
 *    `metadata.phone_number_id` (number-scope.ts). An item without a time of its own is taken as of `receivedAt`,
 *    when the webhook received it (the same on every retry of the queue message).
 * Every step is idempotent, so a replay changes nothing; anything that cannot be stored throws, and the webhook
 * answers 5xx so Meta retries.
 */
export async function applyNetworkNotification(allDeps: Deps, json: unknown, receivedAt?: Date): Promise<void> {
  const { items, unreadable } = readNotification(json, receivedAt ?? allDeps.clock.now());
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
      return applyStatus(deps, item.status, reportedFor(deps.identity, phoneNumberId));
    case 'other':
      logger.info('webhook field not handled', { field: item.field });
      return;
  }
  const { field, key } = item;
  const type = groupTypeOf(field, item.group);
  if (type === undefined) {
    reportUnreadable({ field, type: safeName(item.group.type), reason: `type: not a type of ${field}` });
    return;
  }
  const notification = { phoneNumberId, group: { ...item.group, type }, key };
  switch (type) {
    case 'group_create':
      return applyGroupCreateNotification(deps, notification);
    case 'group_delete':
      return applyGroupDelete(deps, notification);
    case 'group_settings_update':
      return applyGroupSettingsUpdate(deps, notification);
    case 'group_suspend':
    case 'group_suspend_cleared':
      return applyGroupSuspension(deps, notification);
    default:
      return applyParticipantsUpdate(deps, notification);
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
