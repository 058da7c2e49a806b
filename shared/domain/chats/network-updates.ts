import type { GroupEvent, InboundMessage, StatusNotification } from '#shared/domain/network/notification';
import { notificationTime } from '#shared/domain/network/notification';
import { logger } from '#shared/observability/logger';
import type { ChatStore } from '#shared/ports/chat-store';
import type { Clock } from '#shared/ports/clock';
import type { IdGenerator } from '#shared/ports/ids';
import { type MessageStatus, type Participant, STATUS_RANK } from './chat.ts';
import { phoneFromWaId } from './network-ids.ts';

export interface NetworkUpdateDeps {
  clock: Clock;
  ids: IdGenerator;
  chats: ChatStore;
}

const sameParticipant = (a: Participant, b: Participant) =>
  (a.phoneNumber !== null && a.phoneNumber === b.phoneNumber) || (a.userId !== null && a.userId === b.userId);

/** Keeps a group chat's participants and join requests current from `group_participants_update`. */
export async function applyParticipantsUpdate(deps: NetworkUpdateDeps, event: GroupEvent): Promise<void> {
  const link = event.group_id ? await deps.chats.findExternalChat(event.group_id) : undefined;
  if (!link) {
    logger.info('participants update for an unknown group ignored', { groupId: event.group_id, type: event.type });
    return;
  }
  const at = notificationTime(event.timestamp, deps.clock.now()).toISOString();
  const { orgId, chatId } = link;
  switch (event.type) {
    case 'group_join_request_created':
      if (event.join_request_id) {
        await deps.chats.putJoinRequest(orgId, chatId, {
          joinRequestId: event.join_request_id,
          phoneNumber: phoneFromWaId(event.wa_id),
          userId: event.user_id ?? null,
          createdAt: at,
        });
      }
      return;
    case 'group_join_request_revoked':
      if (event.join_request_id) await deps.chats.deleteJoinRequest(orgId, chatId, event.join_request_id);
      return;
    case 'group_participants_add': {
      const added = (event.added_participants ?? []).map((participant) => ({
        phoneNumber: phoneFromWaId(participant.wa_id),
        userId: participant.user_id ?? null,
        joinedAt: at,
      }));
      await deps.chats.updateChat(orgId, chatId, (chat) => {
        const current = chat.participants ?? [];
        const fresh = added.filter(
          (participant) => !current.some((existing) => sameParticipant(existing, participant)),
        );
        return fresh.length
          ? { participants: [...current, ...fresh], updatedAt: laterOf(chat.updatedAt, at) }
          : undefined;
      });
      return;
    }
    case 'group_participants_remove': {
      const removed = (event.removed_participants ?? []).map((participant) => ({
        phoneNumber: phoneFromWaId(participant.wa_id ?? participant.input),
        userId: participant.user_id ?? null,
        joinedAt: at,
      }));
      await deps.chats.updateChat(orgId, chatId, (chat) => {
        const current = chat.participants ?? [];
        const kept = current.filter(
          (existing) => !removed.some((participant) => sameParticipant(existing, participant)),
        );
        return kept.length !== current.length
          ? { participants: kept, updatedAt: laterOf(chat.updatedAt, at) }
          : undefined;
      });
      return;
    }
    default:
      logger.info('participants update type not handled', { type: event.type });
  }
}

/**
 * Stores an inbound group message once and marks the chat as written by a guest. The wamid is claimed first with a
 * fresh, arrival-ordered message id (Meta's timestamps have one-second resolution); a replay finds the claim and
 * reuses its id, so even a crash between the two writes ends with exactly one message.
 */
export async function applyInboundMessage(deps: NetworkUpdateDeps, message: InboundMessage): Promise<void> {
  const link = message.group_id ? await deps.chats.findExternalChat(message.group_id) : undefined;
  if (!link) {
    logger.info('inbound message for an unknown chat ignored', { groupId: message.group_id });
    return;
  }
  const at = notificationTime(message.timestamp, deps.clock.now());
  const { messageId } = await deps.chats.claimNetworkMessage(message.id, {
    orgId: link.orgId,
    chatId: link.chatId,
    messageId: deps.ids.next('msg'),
  });
  const stored = await deps.chats.createMessage({
    messageId,
    chatId: link.chatId,
    orgId: link.orgId,
    direction: 'INBOUND',
    from: phoneFromWaId(message.from) ?? 'unknown',
    text: message.text?.body ?? `[${message.type ?? 'unsupported'} message]`,
    status: 'delivered',
    networkMessageId: message.id,
    createdAt: at.toISOString(),
  });
  if (!stored) return;
  await deps.chats.touchChat(link.orgId, link.chatId, at.toISOString(), 'GUEST');
}

const NETWORK_STATUSES: MessageStatus[] = ['sent', 'delivered', 'read', 'failed'];

/** Moves an outbound message's status forward (never back: `read` before `delivered` leaves it `read`). */
export async function applyStatus(deps: NetworkUpdateDeps, status: StatusNotification): Promise<void> {
  const next = status.status as MessageStatus;
  if (!NETWORK_STATUSES.includes(next)) return;
  const link = await deps.chats.findNetworkMessage(status.id);
  if (!link) {
    logger.info('status for an unknown message ignored', { status: status.status });
    return;
  }
  const from =
    next === 'failed'
      ? (['queued', 'sent'] as MessageStatus[])
      : (Object.keys(STATUS_RANK) as MessageStatus[]).filter(
          (candidate) => STATUS_RANK[candidate] < STATUS_RANK[next] && candidate !== 'failed',
        );
  const [first] = status.errors ?? [];
  const moved = await deps.chats.updateMessage(
    link.orgId,
    link.chatId,
    link.messageId,
    { from },
    {
      status: next,
      ...(next === 'failed'
        ? {
            error: {
              code: String(first?.code ?? 'NETWORK_REJECTED'),
              message: first?.message ?? first?.title ?? 'the network could not deliver the message',
            },
          }
        : {}),
    },
  );
  if (!moved) return;
  const at = notificationTime(status.timestamp, deps.clock.now()).toISOString();
  await deps.chats.touchChat(link.orgId, link.chatId, at);
}

const laterOf = (a: string, b: string) => (a > b ? a : b);
