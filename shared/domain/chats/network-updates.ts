import { notificationEvent, type PublishOnceDeps, publishOnce } from '#shared/domain/events/publish-once';
import type { GroupEvent, InboundMessage, StatusNotification } from '#shared/domain/network/notification';
import { notificationTime } from '#shared/domain/network/notification';
import { logger } from '#shared/observability/logger';
import type { ChatStore, MessageLink } from '#shared/ports/chat-store';
import type { Clock } from '#shared/ports/clock';
import type { IdGenerator } from '#shared/ports/ids';
import { type MessageStatus, type Participant, STATUS_RANK } from './chat.ts';
import { phoneFromWaId } from './network-ids.ts';

export interface NetworkUpdateDeps extends PublishOnceDeps {
  clock: Clock;
  ids: IdGenerator;
  chats: ChatStore;
}

type ParticipantsChange = 'joined' | 'left' | 'removed' | 'join_requested' | 'join_request_revoked';

/**
 * `group.participants_changed` for one `group_participants_update` object. Meta gives these no id of their own
 * (join requests aside), so the identity is what the notification says: group, type, time, ids and members.
 */
function participantsEvent(
  link: { orgId: string; chatId: string },
  event: GroupEvent,
  change: ParticipantsChange,
  phoneNumbers: (string | null)[],
  at: string,
) {
  const numbers = phoneNumbers.filter((phone): phone is string => phone !== null);
  const identity = [
    event.group_id,
    event.type,
    event.timestamp ?? '',
    event.request_id ?? '',
    event.join_request_id ?? '',
    [...numbers].sort().join(','),
  ].join('|');
  return notificationEvent('group.participants_changed', identity, {
    orgId: link.orgId,
    occurredAt: at,
    data: {
      chat_id: link.chatId,
      change,
      phone_numbers: numbers,
      join_request_id: event.join_request_id ?? null,
    },
  });
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
        await publishOnce(deps, participantsEvent(link, event, 'join_requested', [phoneFromWaId(event.wa_id)], at));
      }
      return;
    case 'group_join_request_revoked':
      if (event.join_request_id) {
        await deps.chats.deleteJoinRequest(orgId, chatId, event.join_request_id);
        await publishOnce(
          deps,
          participantsEvent(link, event, 'join_request_revoked', [phoneFromWaId(event.wa_id)], at),
        );
      }
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
      if (added.length) {
        const phones = added.map((participant) => participant.phoneNumber);
        await publishOnce(deps, participantsEvent(link, event, 'joined', phones, at));
      }
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
      if (removed.length) {
        const change = removalKind(event);
        const phones = removed.map((participant) => participant.phoneNumber);
        await publishOnce(deps, participantsEvent(link, event, change, phones, at));
      }
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
  const from = phoneFromWaId(message.from) ?? 'unknown';
  const text = message.type === 'text' || (!message.type && message.text) ? (message.text?.body ?? null) : null;
  const stored = await deps.chats.createMessage({
    messageId,
    chatId: link.chatId,
    orgId: link.orgId,
    direction: 'INBOUND',
    from,
    text: message.text?.body ?? `[${message.type ?? 'unsupported'} message]`,
    status: 'delivered',
    networkMessageId: message.id,
    createdAt: at.toISOString(),
  });
  if (stored) await deps.chats.touchChat(link.orgId, link.chatId, at.toISOString(), 'GUEST');
  // A repeat after a crash before publishing still publishes; the outbox keeps it to one event per wamid.
  await publishOnce(
    deps,
    notificationEvent('message.received', message.id, {
      orgId: link.orgId,
      occurredAt: at.toISOString(),
      data: {
        chat_id: link.chatId,
        message_id: messageId,
        external_message_id: message.id,
        from,
        message_type: message.type ?? 'unknown',
        text,
      },
    }),
  );
}

const NETWORK_STATUSES: MessageStatus[] = ['sent', 'delivered', 'read', 'failed'];

export type StatusDeps = Omit<NetworkUpdateDeps, 'ids'>;

/**
 * Applies the statuses that arrived before the wamid was linked (the sender calls it right after linking), in their
 * own order (sent, delivered, read), so that each is published as if it had come in time.
 */
export async function applyHeldStatuses(deps: StatusDeps, networkMessageId: string): Promise<void> {
  const held = (await deps.chats.heldStatuses(networkMessageId)) as StatusNotification[];
  const rank = (status: StatusNotification) => STATUS_RANK[status.status as MessageStatus] ?? 0;
  for (const status of held.sort((a, b) => rank(a) - rank(b))) await applyStatus(deps, status);
}

/** Moves an outbound message's status forward (never back: `read` before `delivered` leaves it `read`). */
export async function applyStatus(deps: StatusDeps, status: StatusNotification): Promise<void> {
  const next = status.status as MessageStatus;
  if (!NETWORK_STATUSES.includes(next)) return;
  let link = await deps.chats.findNetworkMessage(status.id);
  if (!link) {
    // Meta can notify before the sender has linked the id it answered with: keep the status for the sender, then
    // look again, since the sender may have linked and read the held statuses in between (one of the two sees both).
    await deps.chats.holdStatus(status.id, next, status, deps.clock.now());
    link = await deps.chats.findNetworkMessage(status.id);
    if (!link) {
      logger.info('status held until its message is linked', { status: next });
      return;
    }
  }
  const from =
    next === 'failed'
      ? (['queued', 'sent'] as MessageStatus[])
      : (Object.keys(STATUS_RANK) as MessageStatus[]).filter(
          (candidate) => STATUS_RANK[candidate] < STATUS_RANK[next] && candidate !== 'failed',
        );
  const [first] = status.errors ?? [];
  const error =
    next === 'failed'
      ? {
          code: String(first?.code ?? 'NETWORK_REJECTED'),
          message: first?.message ?? first?.title ?? 'the network could not deliver the message',
        }
      : undefined;
  const moved = await deps.chats.updateMessage(
    link.orgId,
    link.chatId,
    link.messageId,
    { from },
    { status: next, ...(error ? { error } : {}) },
  );
  const at = notificationTime(status.timestamp, deps.clock.now()).toISOString();
  if (moved) {
    await deps.chats.touchChat(link.orgId, link.chatId, at);
  } else {
    // Not moved: a repeat (publish what a crash may have left unpublished) or a status overtaken by a later one.
    const current = await deps.chats.getMessage(link.orgId, link.chatId, link.messageId);
    if (current?.status !== next) return;
  }
  await publishOnce(deps, messageStatusEvent(link, status.id, next, at, error));
}

/**
 * `message.status` for a message: one event per (wamid, status), whoever notices the change first — Meta's
 * notification, or the sender for `sent` (Meta's `delivered` can overtake its own `sent`).
 */
export function messageStatusEvent(
  link: MessageLink,
  networkMessageId: string,
  status: MessageStatus,
  occurredAt: string,
  error?: { code: string; message: string },
) {
  return notificationEvent('message.status', `${networkMessageId}:${status}`, {
    orgId: link.orgId,
    occurredAt,
    data: { chat_id: link.chatId, message_id: link.messageId, status, error: error ?? null },
  });
}

const laterOf = (a: string, b: string) => (a > b ? a : b);

/**
 * Who ended a membership (CONTRACT §16): Meta's `initiated_by` when it says (`participant` → left, `business` →
 * removed); without it, a removal that answers a request of ours (it carries Meta's `request_id`) was ours, any
 * other was the member's own.
 */
const removalKind = (event: GroupEvent): 'left' | 'removed' =>
  event.initiated_by === 'participant'
    ? 'left'
    : event.initiated_by === 'business' || event.request_id
      ? 'removed'
      : 'left';
