import { type Chat, groupStatusOf } from '#shared/domain/chats/chat';
import { notificationEvent, type PublishOnceDeps, publishOnce } from '#shared/domain/events/publish-once';
import { type GroupNotification, joinApprovalOf, notificationTime } from '#shared/domain/network/notification';
import { logger } from '#shared/observability/logger';
import type { ChatStore, ExternalChatLink } from '#shared/ports/chat-store';

export interface GroupLifecycleDeps extends PublishOnceDeps {
  chats: ChatStore;
}

type SettingError = { field: 'subject' | 'description'; code: string; message: string };

/**
 * The chat a group notification is about, or nothing: an unknown group, or a notification reported for another
 * number than the one that owns the group (CONTRACT §13), changes nothing.
 */
async function groupChat(deps: GroupLifecycleDeps, { phoneNumberId, group }: GroupNotification) {
  const link = group.group_id ? await deps.chats.findExternalChat(group.group_id) : undefined;
  if (!link) {
    logger.info('notification for an unknown group ignored', { groupId: group.group_id, type: group.type });
    return undefined;
  }
  if (link.phoneNumberId !== phoneNumberId) {
    logger.warn('security: group notification for another number than the group’s ignored', {
      groupId: group.group_id,
      type: group.type,
      reportedFor: phoneNumberId,
    });
    return undefined;
  }
  return link;
}

const laterOf = (a: string, b: string) => (a > b ? a : b);

/**
 * Whether a notification at `at` is older than the last one applied (CONTRACT §16, ordering): a replay or Meta's
 * late retry changes nothing and publishes nothing. The same second is not older (a replay of the last one is
 * applied again, idempotently).
 */
const isOlder = (at: string, lastApplied: string | undefined) => lastApplied !== undefined && at < lastApplied;

function updatedEvent(link: ExternalChatLink, chat: Chat, identity: string, at: string, errors: SettingError[]) {
  return notificationEvent('group.updated', identity, {
    orgId: link.orgId,
    occurredAt: at,
    data: {
      chat_id: link.chatId,
      subject: chat.name,
      description: chat.description ?? null,
      group_status: groupStatusOf(chat),
      errors,
    },
  });
}

type KeptSettings = Partial<Pick<Chat, 'name' | 'description' | 'requireJoinApproval'>>;

/**
 * Meta's `group_settings_update` (CONTRACT §11, §16).
 * 1. Each setting the service keeps that Meta applied is applied to the chat: the subject (the chat's name), the
 *    description and `join_approval_mode` (`requireJoinApproval`); a deleted group is left as it is. Settings the
 *    service does not keep (`profile_picture`) are ignored.
 * 2. `group.updated` carries the group as it now is, and one error per setting Meta did not apply; it is published
 *    only when the notification changed what the service keeps or reports an error, identified by its content.
 * A notification older than the last one applied to the settings changes nothing and publishes nothing.
 */
export async function applyGroupSettingsUpdate(deps: GroupLifecycleDeps, notification: GroupNotification) {
  const link = await groupChat(deps, notification);
  if (!link) return;
  const { group } = notification;
  const at = notificationTime(group.timestamp, deps.clock.now()).toISOString();
  const settings = [
    ['subject', group.group_subject],
    ['description', group.group_description],
  ] as const;
  const errors: SettingError[] = [];
  const applied: KeptSettings = {};
  for (const [field, result] of settings) {
    if (!result) continue;
    if (result.update_successful === false || result.errors?.length) {
      const [first] = result.errors ?? group.errors ?? [];
      errors.push({
        field,
        code: String(first?.code ?? 'NETWORK_REJECTED'),
        message: first?.message ?? first?.title ?? `the network did not change the ${field}`,
      });
    } else if (result.text !== undefined) {
      if (field === 'subject') applied.name = result.text;
      else applied.description = result.text;
    }
  }
  const requireJoinApproval = joinApprovalOf(group.join_approval_mode);
  if (requireJoinApproval !== undefined) applied.requireJoinApproval = requireJoinApproval;
  if (!errors.length && !Object.keys(applied).length) {
    logger.info('settings notification that changes nothing the service keeps ignored', { groupId: group.group_id });
    return;
  }
  let stale = false;
  let publish = false;
  const chat = await deps.chats.updateChat(link.orgId, link.chatId, (current) => {
    stale = isOlder(at, current.settingsUpdatedAt);
    publish = false;
    if (groupStatusOf(current) === 'deleted' || stale) return undefined;
    const changed = (Object.keys(applied) as (keyof KeptSettings)[]).some((key) => applied[key] !== current[key]);
    const repeat = current.changedAt?.settings === at;
    publish = changed || errors.length > 0 || repeat;
    const settingsUpdatedAt = laterOf(current.settingsUpdatedAt ?? at, at);
    if (!changed && !errors.length) {
      return settingsUpdatedAt === current.settingsUpdatedAt ? undefined : { settingsUpdatedAt };
    }
    return {
      ...applied,
      settingsUpdatedAt,
      changedAt: { ...current.changedAt, settings: at },
      updatedAt: laterOf(current.updatedAt, at),
    };
  });
  if (!chat || stale || !publish || groupStatusOf(chat) === 'deleted') {
    if (stale)
      logger.info('settings notification older than the last one applied ignored', { groupId: group.group_id });
    return;
  }
  await publishOnce(deps, updatedEvent(link, chat, notification.key, at, errors));
}

/**
 * Meta's `group_suspend` / `group_suspend_cleared` (`group_status_update`): the group becomes `suspended` or
 * `active` again, and `group.updated` says so, identified by the notification's content. One that finds the group
 * in that status already, or deleted, publishes nothing; a notification older than the last one applied to the
 * status changes nothing and publishes nothing.
 */
export async function applyGroupSuspension(deps: GroupLifecycleDeps, notification: GroupNotification) {
  const link = await groupChat(deps, notification);
  if (!link) return;
  const { group } = notification;
  const groupStatus = group.type === 'group_suspend' ? 'suspended' : 'active';
  const at = notificationTime(group.timestamp, deps.clock.now()).toISOString();
  let stale = false;
  let publish = false;
  const chat = await deps.chats.updateChat(link.orgId, link.chatId, (current) => {
    stale = isOlder(at, current.statusUpdatedAt);
    publish = false;
    if (stale || groupStatusOf(current) === 'deleted') return undefined;
    const changed = groupStatusOf(current) !== groupStatus;
    publish = changed || current.changedAt?.status === at;
    if (!changed) {
      return current.statusUpdatedAt !== undefined && current.statusUpdatedAt >= at
        ? undefined
        : { statusUpdatedAt: at };
    }
    return {
      groupStatus,
      statusUpdatedAt: at,
      changedAt: { ...current.changedAt, status: at },
      updatedAt: laterOf(current.updatedAt, at),
    };
  });
  if (!chat || stale || !publish || groupStatusOf(chat) === 'deleted') {
    if (stale) logger.info('status notification older than the last one applied ignored', { groupId: group.group_id });
    return;
  }
  await publishOnce(deps, updatedEvent(link, chat, notification.key, at, []));
}

/**
 * Meta's `group_delete` (`group_lifecycle_update`): the group becomes `deleted` and its chat archived (still
 * readable), then `group.deleted` is published, once per group. A failed deletion changes nothing.
 */
export async function applyGroupDelete(deps: GroupLifecycleDeps, notification: GroupNotification) {
  const { group } = notification;
  if (group.errors?.length) {
    logger.warn('group deletion failed on the network', { groupId: group.group_id, code: group.errors[0]?.code });
    return;
  }
  const link = await groupChat(deps, notification);
  if (!link) return;
  const at = notificationTime(group.timestamp, deps.clock.now()).toISOString();
  const chat = await deps.chats.updateChat(link.orgId, link.chatId, (current) =>
    groupStatusOf(current) === 'deleted'
      ? undefined
      : { groupStatus: 'deleted', isArchived: true, updatedAt: laterOf(current.updatedAt, at) },
  );
  if (!chat) return;
  await publishOnce(
    deps,
    notificationEvent('group.deleted', group.group_id ?? link.chatId, {
      orgId: link.orgId,
      occurredAt: at,
      data: { chat_id: link.chatId },
    }),
  );
}
