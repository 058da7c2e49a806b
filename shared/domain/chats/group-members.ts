import { decodeCursor, encodeCursor } from '#shared/domain/cursor';
import { type Channel, inviteTemplateOf } from '#shared/domain/orgs/model';
import {
  ChatNotFoundError,
  GroupDeletedError,
  NetworkRejectedError,
  NetworkUnavailableError,
  NotAGroupError,
} from '#shared/errors';
import { logger } from '#shared/observability/logger';
import type { ChannelCredentials } from '#shared/ports/channel-credentials';
import type { ChatStore } from '#shared/ports/chat-store';
import type { Clock } from '#shared/ports/clock';
import type { CursorKey } from '#shared/ports/cursor-key';
import type { ChannelStore } from '#shared/ports/identity-store';
import { type MessagingNetwork, type NetworkChannel, NetworkError } from '#shared/ports/messaging-network';
import { type Chat, groupStatusOf } from './chat.ts';
import { type MessageQuotaDeps, takeMessageQuota } from './chats.ts';

export interface GroupMemberDeps {
  clock: Clock;
  chats: ChatStore;
  identity: ChannelStore;
  network: MessagingNetwork;
  channelCredentials: ChannelCredentials;
}

interface GroupContext {
  chat: Chat & { externalChatId: string };
  channel: Channel;
  network: NetworkChannel;
}

/** Reads only the table: listings never need the channel's network credentials. */
export type GroupReadDeps = Pick<GroupMemberDeps, 'chats' | 'identity'>;

/** The group chat and its channel: 404 CHAT_NOT_FOUND, 422 NOT_A_GROUP. */
export async function requireGroupChat(deps: GroupReadDeps, orgId: string, chatId: string) {
  const chat = await deps.chats.getChat(orgId, chatId);
  if (!chat) throw new ChatNotFoundError(chatId);
  if (chat.chatType !== 'GROUP' || !chat.externalChatId) throw new NotAGroupError(chatId);
  const channel = await deps.identity.getChannel(orgId, chat.channelId);
  if (!channel) throw new NotAGroupError(chatId);
  return { chat: chat as GroupContext['chat'], channel };
}

/**
 * A group the network can still act on, with the channel's credentials; a deleted one is 422 GROUP_DELETED. The
 * credentials come through the network gate (ChannelCredentials): a disabled channel is 422 CHANNEL_DISABLED here,
 * before the route writes anything or calls Meta (CONTRACT §17).
 */
export async function requireGroup(deps: GroupMemberDeps, orgId: string, chatId: string): Promise<GroupContext> {
  const { chat, channel } = await requireGroupChat(deps, orgId, chatId);
  if (groupStatusOf(chat) === 'deleted') throw new GroupDeletedError(chatId);
  return { chat, channel, network: await deps.channelCredentials.forChannel(channel) };
}

/** A refusal by the network → 422 NETWORK_REJECTED with its code; no answer → 503 NETWORK_UNAVAILABLE. */
export async function callNetwork<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error;
    if (error.kind === 'rejected') throw new NetworkRejectedError(error.code, error.message);
    throw new NetworkUnavailableError(error.details.retryAfterSeconds ?? 30);
  }
}

export async function listParticipants(deps: GroupReadDeps, input: { orgId: string; chatId: string }) {
  const { chat } = await requireGroupChat(deps, input.orgId, input.chatId);
  return { participants: chat.participants ?? [] };
}

/**
 * Invites numbers by sending each the channel's copy of Meta's group invite-link template (CONTRACT §16; a business
 * cannot add members); Meta refusing it (e.g. 132001, no such template) is that invitation's error. Each number
 * is one message of the organisation's MESSAGE_SEND_RATE_LIMIT (429 RATE_LIMITED) and gets its own outcome; only a
 * network that answers none of them is a 503.
 */
export async function inviteParticipants(
  deps: GroupMemberDeps & MessageQuotaDeps,
  input: { orgId: string; chatId: string; phoneNumbers: string[] },
) {
  const { chat, channel, network } = await requireGroup(deps, input.orgId, input.chatId);
  await takeMessageQuota(deps, input.orgId, input.phoneNumbers.length);
  const template = inviteTemplateOf(channel);
  const outcomes = await Promise.allSettled(
    input.phoneNumbers.map((phoneNumber) =>
      deps.network.sendGroupInvite(network, phoneNumber, chat.externalChatId, template),
    ),
  );
  if (outcomes.every((outcome) => outcome.status === 'rejected' && !isRefusal(outcome.reason))) {
    const first = outcomes[0] as PromiseRejectedResult;
    if (first.reason instanceof NetworkError)
      throw new NetworkUnavailableError(first.reason.details.retryAfterSeconds ?? 30);
    throw first.reason;
  }
  return {
    invitations: outcomes.map((outcome, index) => {
      const phoneNumber = input.phoneNumbers[index]!;
      if (outcome.status === 'fulfilled')
        return { phoneNumber, status: 'sent' as const, messageId: outcome.value.networkMessageId };
      const reason = outcome.reason as Error;
      if (isRefusal(reason)) {
        // Meta's refusal with Meta's code and message; a refusal without Meta's error body has neither to give.
        const { code } = reason as NetworkError;
        const error =
          code === undefined ? INVITATION_REFUSED : { code: String(code), message: (reason as NetworkError).message };
        return { phoneNumber, status: 'failed' as const, error };
      }
      // Transport failures name hosts, paths and system errors: they are logged, never answered (CONTRACT §1).
      logger.warn('invitation not sent: the network did not answer', { chatId: input.chatId, error: reason });
      return { phoneNumber, status: 'failed' as const, error: INVITATION_UNAVAILABLE };
    }),
  };
}

const INVITATION_REFUSED = { code: 'NETWORK_REJECTED', message: 'the messaging network refused the invitation' };

const INVITATION_UNAVAILABLE = {
  code: 'NETWORK_UNAVAILABLE',
  message: 'the messaging network could not be reached; invite this number again later',
};

const isRefusal = (reason: unknown) => reason instanceof NetworkError && reason.kind === 'rejected';

/** Asks the network to remove participants; the participant list follows its notification. */
export async function removeParticipants(
  deps: GroupMemberDeps,
  input: { orgId: string; chatId: string; phoneNumbers?: string[]; userIds?: string[] },
) {
  const { chat, network } = await requireGroup(deps, input.orgId, input.chatId);
  const users = [...(input.phoneNumbers ?? []).map((phone) => phone.replace(/^\+/, '')), ...(input.userIds ?? [])];
  await callNetwork(() => deps.network.removeParticipants(network, chat.externalChatId, users));
  return { status: 'pending' as const, phoneNumbers: input.phoneNumbers ?? [], userIds: input.userIds ?? [] };
}

export async function getInviteLink(deps: GroupMemberDeps, input: { orgId: string; chatId: string }) {
  const { chat, network } = await requireGroup(deps, input.orgId, input.chatId);
  const inviteLink = await callNetwork(() => deps.network.getInviteLink(network, chat.externalChatId));
  if (inviteLink !== chat.inviteLink) await deps.chats.updateChat(input.orgId, input.chatId, () => ({ inviteLink }));
  return { inviteLink };
}

export async function resetInviteLink(deps: GroupMemberDeps, input: { orgId: string; chatId: string }) {
  const { chat, network } = await requireGroup(deps, input.orgId, input.chatId);
  const inviteLink = await callNetwork(() => deps.network.resetInviteLink(network, chat.externalChatId));
  await deps.chats.updateChat(input.orgId, input.chatId, () => ({
    inviteLink,
    updatedAt: deps.clock.now().toISOString(),
  }));
  return { inviteLink };
}

export async function listJoinRequests(
  deps: GroupReadDeps & { cursorKey: CursorKey },
  input: { orgId: string; chatId: string; limit: number; cursor?: string },
) {
  await requireGroupChat(deps, input.orgId, input.chatId);
  const binding = ['join-requests', input.orgId, input.chatId];
  const key = await deps.cursorKey.get();
  const page = await deps.chats.listJoinRequests(input.orgId, input.chatId, {
    limit: input.limit,
    startKey: decodeCursor(key, input.cursor, binding),
  });
  return { joinRequests: page.items, nextCursor: encodeCursor(key, page.nextKey, binding) };
}

/** Approves or rejects join requests in bulk; each id gets its own outcome, and handled ones leave the list. */
export async function decideJoinRequests(
  deps: GroupMemberDeps,
  input: { orgId: string; chatId: string; joinRequestIds: string[]; decision: 'approve' | 'reject' },
) {
  const { chat, network } = await requireGroup(deps, input.orgId, input.chatId);
  const ids = [...new Set(input.joinRequestIds)];
  const outcome = await callNetwork(() =>
    input.decision === 'approve'
      ? deps.network.approveJoinRequests(network, chat.externalChatId, ids)
      : deps.network.rejectJoinRequests(network, chat.externalChatId, ids),
  );
  for (const id of outcome.succeeded) await deps.chats.deleteJoinRequest(input.orgId, input.chatId, id);
  return {
    succeeded: outcome.succeeded,
    failed: outcome.failed.map((failure) => ({
      joinRequestId: failure.joinRequestId,
      error: { code: String(failure.code ?? 'NETWORK_REJECTED'), message: failure.message },
    })),
  };
}
