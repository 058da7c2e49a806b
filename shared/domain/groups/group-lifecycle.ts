import { type GroupStatus, groupStatusOf, groupView } from '#shared/domain/chats/chat';
import { callNetwork, type GroupMemberDeps, requireGroup, requireGroupChat } from '#shared/domain/chats/group-members';
import { decodeCursor, encodeCursor } from '#shared/domain/cursor';
import { ChatNotFoundError, NotAGroupError } from '#shared/errors';
import { logger } from '#shared/observability/logger';
import type { ChatStore } from '#shared/ports/chat-store';
import type { CursorKey } from '#shared/ports/cursor-key';

/** The organisation's groups, newest first, with a cursor bound to the organisation and the filters. */
export async function listGroups(
  deps: { chats: ChatStore; cursorKey: CursorKey },
  input: { orgId: string; channelId?: string; groupStatus?: GroupStatus; limit: number; cursor?: string },
) {
  const binding = ['groups', input.orgId, input.channelId ?? null, input.groupStatus ?? null];
  const key = await deps.cursorKey.get();
  const page = await deps.chats.listGroups(
    input.orgId,
    { channelId: input.channelId, groupStatus: input.groupStatus },
    { limit: input.limit, startKey: decodeCursor(key, input.cursor, binding) },
  );
  return { groups: page.items.map(groupView), nextCursor: encodeCursor(key, page.nextKey, binding) };
}

/** One group, deleted ones included: 404 CHAT_NOT_FOUND, 422 NOT_A_GROUP. */
export async function getGroup(deps: { chats: ChatStore }, input: { orgId: string; chatId: string }) {
  const chat = await deps.chats.getChat(input.orgId, input.chatId);
  if (!chat) throw new ChatNotFoundError(input.chatId);
  if (chat.chatType !== 'GROUP' || !chat.externalChatId) throw new NotAGroupError(input.chatId);
  return groupView(chat);
}

/**
 * Changes a group's subject and/or description (CONTRACT §11).
 * 1. The chat must be a group (404 / 422 NOT_A_GROUP) that is not deleted (422 GROUP_DELETED), on a channel the
 *    network gate lets through (422 CHANNEL_DISABLED).
 * 2. Ask Meta (`POST /{group-id}`); a refusal is 422 NETWORK_REJECTED, no answer 503 NETWORK_UNAVAILABLE.
 * 3. Nothing changes here: Meta's `group_settings_update` applies each field that succeeded and publishes
 *    `group.updated` (apply-group-lifecycle.ts).
 */
export async function updateGroup(
  deps: GroupMemberDeps,
  input: { orgId: string; chatId: string; subject?: string; description?: string },
) {
  const { chat, network } = await requireGroup(deps, input.orgId, input.chatId);
  await callNetwork(() =>
    deps.network.updateGroupSettings(network, chat.externalChatId, {
      subject: input.subject,
      description: input.description,
    }),
  );
  logger.info('group settings update sent', { chatId: chat.chatId });
  return { chatId: chat.chatId, status: 'pending' as const };
}

/**
 * Deletes a group on the network (CONTRACT §11).
 * 1. The chat must be a group (404 / 422); one already deleted answers 202 without a network call.
 * 2. The channel must pass the network gate (422 CHANNEL_DISABLED), then `DELETE /{group-id}`; Meta's `group_delete`
 *    notification marks it deleted and publishes `group.deleted`.
 */
export async function deleteGroup(deps: GroupMemberDeps, input: { orgId: string; chatId: string }) {
  const { chat, channel } = await requireGroupChat(deps, input.orgId, input.chatId);
  if (groupStatusOf(chat) !== 'deleted') {
    const network = await deps.channelCredentials.forChannel(channel);
    await callNetwork(() => deps.network.deleteGroup(network, chat.externalChatId));
    logger.info('group deletion sent', { chatId: chat.chatId });
  }
  return { chatId: chat.chatId, status: 'pending' as const };
}
