import type { Config } from '#shared/config/env';
import { senderRole } from '#shared/domain/auth/credential-id';
import { ADMINS_AND_BOTS, type Role } from '#shared/domain/auth/roles';
import { decodeCursor, encodeCursor } from '#shared/domain/cursor';
import {
  ChannelDisabledError,
  ChannelNotSupportedError,
  ChatNotFoundError,
  DomainError,
  GroupDeletedError,
  MessageNotFoundError,
  RateLimitedError,
} from '#shared/errors';
import { logger } from '#shared/observability/logger';
import type { ChatStore } from '#shared/ports/chat-store';
import type { Clock } from '#shared/ports/clock';
import type { CursorKey } from '#shared/ports/cursor-key';
import type { RateLimiter } from '#shared/ports/idempotency-store';
import type { ChannelStore } from '#shared/ports/identity-store';
import type { IdGenerator } from '#shared/ports/ids';
import type { JobQueue } from '#shared/ports/job-queue';
import { type Chat, chatView, groupStatusOf, messageView } from './chat.ts';

export const OUTBOUND_MESSAGES_QUEUE = 'outbound-messages';

export interface MessageQuotaDeps {
  config: Pick<Config, 'messaging'>;
  clock: Clock;
  limits: RateLimiter;
}

/** Messages the organisation sends through the network, invitations included, share one window (CONTRACT §13). */
export async function takeMessageQuota(deps: MessageQuotaDeps, orgId: string, messages: number): Promise<void> {
  const { limit, windowSeconds } = deps.config.messaging.sendRateLimit;
  const quota = await deps.limits.take('message-send', orgId, limit, windowSeconds, deps.clock.now(), messages);
  if (!quota.allowed) {
    throw new RateLimitedError(`at most ${limit} messages per ${windowSeconds} s`, quota.retryAfterSeconds);
  }
}

interface ChatDeps {
  clock: Clock;
  chats: ChatStore;
}

async function requireChat(deps: ChatDeps, orgId: string, chatId: string): Promise<Chat> {
  const chat = await deps.chats.getChat(orgId, chatId);
  if (!chat) throw new ChatNotFoundError(chatId);
  return chat;
}

/**
 * A chat as GET /chats shows it. A group's invite link and members are shown only to the roles that may manage
 * members (CONTRACT §4, "Members of a group"): an agent reads the conversation, not who is in it or how to join.
 */
export async function getChat(deps: ChatDeps, input: { orgId: string; chatId: string; roles: readonly Role[] }) {
  const view = chatView(await requireChat(deps, input.orgId, input.chatId));
  if (input.roles.some((role) => ADMINS_AND_BOTS.includes(role))) return view;
  const { inviteLink, participants, ...agentView } = view;
  return agentView;
}

/** The conversation, oldest first, with a cursor bound to the organisation and chat. */
export async function listMessages(
  deps: ChatDeps & { cursorKey: CursorKey },
  input: { orgId: string; chatId: string; limit: number; cursor?: string },
) {
  await requireChat(deps, input.orgId, input.chatId);
  const binding = ['messages', input.orgId, input.chatId];
  const key = await deps.cursorKey.get();
  const page = await deps.chats.listMessages(input.orgId, input.chatId, {
    limit: input.limit,
    startKey: decodeCursor(key, input.cursor, binding),
  });
  return { messages: page.items.map(messageView), nextCursor: encodeCursor(key, page.nextKey, binding) };
}

/**
 * A message's receipts by group member (CONTRACT §16).
 * 1. The chat (404 CHAT_NOT_FOUND) and the message in it (404 MESSAGE_NOT_FOUND) must exist.
 * 2. One page of receipts, with a cursor bound to the message.
 */
export async function listReceipts(
  deps: ChatDeps & { cursorKey: CursorKey },
  input: { orgId: string; chatId: string; messageId: string; limit: number; cursor?: string },
) {
  await requireChat(deps, input.orgId, input.chatId);
  if (!(await deps.chats.getMessage(input.orgId, input.chatId, input.messageId))) {
    throw new MessageNotFoundError(input.messageId);
  }
  const binding = ['receipts', input.orgId, input.chatId, input.messageId];
  const key = await deps.cursorKey.get();
  const page = await deps.chats.listReceipts(input.orgId, input.chatId, input.messageId, {
    limit: input.limit,
    startKey: decodeCursor(key, input.cursor, binding),
  });
  return { receipts: page.items, nextCursor: encodeCursor(key, page.nextKey, binding) };
}

/**
 * Queues a text message to a chat.
 * 1. The chat must exist (404), not be a deleted group (422 GROUP_DELETED), and be on a channel that sends through
 *    the network (422 CHANNEL_NOT_SUPPORTED) and not disabled by an operator (422 CHANNEL_DISABLED).
 * 2. Count it against the organisation's MESSAGE_SEND_RATE_LIMIT (429 RATE_LIMITED with Retry-After).
 * 3. Store the message `queued`, queue it for the sender, and mark the chat as last written by us.
 */
export async function sendMessage(
  deps: ChatDeps & MessageQuotaDeps & { ids: IdGenerator; identity: ChannelStore; queue: JobQueue },
  input: { orgId: string; chatId: string; text: string; sender: { roles: Role[]; credentialId: string } },
) {
  const chat = await requireChat(deps, input.orgId, input.chatId);
  if (chat.chatType === 'GROUP' && groupStatusOf(chat) === 'deleted') throw new GroupDeletedError(chat.chatId);
  const channel = await deps.identity.getChannel(input.orgId, chat.channelId);
  if (channel?.type !== 'MESSAGING_OFFICIAL' || !channel.phoneNumberId || !chat.externalChatId) {
    throw new ChannelNotSupportedError(chat.channelId);
  }
  if (channel.disabledAt) throw new ChannelDisabledError(chat.channelId);
  await takeMessageQuota(deps, input.orgId, 1);
  const now = deps.clock.now().toISOString();
  const messageId = deps.ids.next('msg');
  await deps.chats.createMessage({
    messageId,
    chatId: chat.chatId,
    orgId: input.orgId,
    direction: 'OUTBOUND',
    from: senderRole(input.sender.roles) ?? 'UNKNOWN',
    sentBy: input.sender.credentialId,
    text: input.text,
    status: 'queued',
    createdAt: now,
  });
  await deps.queue.send(OUTBOUND_MESSAGES_QUEUE, { orgId: input.orgId, chatId: chat.chatId, messageId });
  const lastMessageFrom = input.sender.roles.includes('CRM_BOT') && input.sender.roles.length === 1 ? 'BOT' : 'AGENT';
  await deps.chats.touchChat(input.orgId, chat.chatId, now, lastMessageFrom);
  logger.info('message queued', { chatId: chat.chatId, messageId });
  return { messageId, status: 'queued' as const };
}

/**
 * Replaces a chat's assignment: each list given replaces the old one, an omitted one stays; the primary assignee
 * must be among the assigned users afterwards (422 VALIDATION_FAILED).
 */
export async function assignChat(
  deps: ChatDeps,
  input: { orgId: string; chatId: string; userIds?: string[]; teamIds?: string[]; primaryUserId?: string | null },
) {
  const unique = (ids: string[] | undefined) => (ids ? [...new Set(ids)] : undefined);
  const updated = await deps.chats.updateChat(input.orgId, input.chatId, (chat) => {
    const assignedUserIds = unique(input.userIds) ?? chat.assignedUserIds;
    const assignedTeamIds = unique(input.teamIds) ?? chat.assignedTeamIds;
    const primary = input.primaryUserId === undefined ? chat.primaryAssigneeUserId : (input.primaryUserId ?? undefined);
    if (primary !== undefined && !assignedUserIds.includes(primary)) {
      if (input.primaryUserId === undefined) {
        return {
          assignedUserIds,
          assignedTeamIds,
          primaryAssigneeUserId: undefined,
          updatedAt: deps.clock.now().toISOString(),
        };
      }
      throw new DomainError('VALIDATION_FAILED', 'primaryUserId must be one of the assigned users', {
        status: 422,
        errors: [{ pointer: '/primaryUserId', message: 'is not among the assigned users' }],
      });
    }
    return {
      assignedUserIds,
      assignedTeamIds,
      primaryAssigneeUserId: primary,
      updatedAt: deps.clock.now().toISOString(),
    };
  });
  if (!updated) throw new ChatNotFoundError(input.chatId);
  return {
    chatId: updated.chatId,
    assignedUserIds: updated.assignedUserIds,
    assignedTeamIds: updated.assignedTeamIds,
    primaryAssigneeUserId: updated.primaryAssigneeUserId ?? null,
  };
}
