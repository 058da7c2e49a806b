import { notificationEvent, type PublishOnceDeps, publishOnce } from '#shared/domain/events/publish-once';
import {
  firstError,
  type GroupEvent,
  type GroupNotification,
  type InboundMessage,
  type NetworkParticipant,
  notificationTime,
  type StatusNotification,
} from '#shared/domain/network/notification';
import { logger } from '#shared/observability/logger';
import type { ChatStore, ExternalChatLink, MessageLink } from '#shared/ports/chat-store';
import type { Clock } from '#shared/ports/clock';
import type { ChannelStore } from '#shared/ports/identity-store';
import type { IdGenerator } from '#shared/ports/ids';
import { type JoinRequest, type MessageStatus, STATUS_RANK } from './chat.ts';
import { phoneFromWaId } from './network-ids.ts';

export interface NetworkUpdateDeps extends PublishOnceDeps {
  clock: Clock;
  ids: IdGenerator;
  chats: ChatStore;
}

type ParticipantsChange = 'joined' | 'left' | 'removed' | 'join_requested' | 'join_request_revoked';

/** A member as a notification names it: by phone number, by business-scoped user id, or both. */
export interface Member {
  phoneNumber: string | null;
  userId: string | null;
}

/** One participant the network could not remove, as `group.participants_changed` lists it. */
interface MemberError {
  phone_number: string | null;
  user_id: string | null;
  code: string;
  message: string;
}

const PHONE_LIKE = /^\+?\d{6,15}$/;

/**
 * A participant object of any published shape (CONTRACT §16): `wa_id` is the phone number's digits, `user_id` the
 * business-scoped user id; `input` is what the business asked with, a number or a user id. A `username` alone names
 * nobody we can store.
 */
export function memberOf(participant: NetworkParticipant): Member | undefined {
  const input = participant.input?.trim();
  const phoneNumber = phoneFromWaId(participant.wa_id ?? (input && PHONE_LIKE.test(input) ? input : undefined));
  const userId = participant.user_id ?? (input && !PHONE_LIKE.test(input) ? input : undefined) ?? null;
  return phoneNumber || userId ? { phoneNumber, userId } : undefined;
}

export const membersOf = (participants: NetworkParticipant[] | undefined) =>
  (participants ?? []).map(memberOf).filter((member): member is Member => member !== undefined);

/** The keys a member's last applied notification time is kept under (CONTRACT §16, ordering). */
const memberKeys = (member: Member) => [
  ...(member.phoneNumber ? [`phone:${member.phoneNumber}`] : []),
  ...(member.userId ? [`user:${member.userId}`] : []),
];

/** Whether a notification at `at` is older than the last one applied to this member. */
const isOlderFor = (times: Record<string, string>, member: Member, at: string) =>
  memberKeys(member).some((key) => times[key] !== undefined && times[key] > at);

/** Whether the notification at `at` is the one that last changed this member (so this is a repeat of it). */
const isRepeatFor = (changed: Record<string, string>, member: Member, at: string) =>
  memberKeys(member).some((key) => changed[key] === at);

/** `times` with every key of `members` at `at` (or later, where it already is). */
export const stamped = (times: Record<string, string>, members: Member[], at: string) => {
  const next = { ...times };
  for (const member of members) for (const key of memberKeys(member)) next[key] = laterOf(next[key] ?? at, at);
  return next;
};

const sameRecord = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([key, value]) => b[key] === value);

/**
 * `group.participants_changed` for one `group_participants_update` object, identified by the notification's content
 * (`key`, notification.ts): a repeat of it gives the same event id, another notification never does.
 */
function participantsEvent(
  link: { orgId: string; chatId: string },
  notification: GroupNotification,
  change: ParticipantsChange,
  members: Member[],
  at: string,
  errors: MemberError[] = [],
) {
  const numbers = members.map((member) => member.phoneNumber).filter((phone): phone is string => phone !== null);
  const userIds = members.map((member) => member.userId).filter((id): id is string => id !== null);
  return notificationEvent('group.participants_changed', notification.key, {
    orgId: link.orgId,
    occurredAt: at,
    data: {
      chat_id: link.chatId,
      change,
      phone_numbers: numbers,
      user_ids: userIds,
      join_request_id: notification.group.join_request_id ?? null,
      errors,
    },
  });
}

const sameParticipant = (a: Member, b: Member) =>
  (a.phoneNumber !== null && a.phoneNumber === b.phoneNumber) || (a.userId !== null && a.userId === b.userId);

/** Each participant Meta could not remove, with its own error (else the notification's). */
function removalErrors(event: GroupEvent): MemberError[] {
  return (event.failed_participants ?? []).map((participant) => {
    const member = memberOf(participant);
    const error = firstError(participant.errors, 'the network did not remove the participant') ??
      firstError(event.errors, 'the network did not remove the participant') ?? {
        code: 'NETWORK_REJECTED',
        message: 'the network did not remove the participant',
      };
    return { phone_number: member?.phoneNumber ?? null, user_id: member?.userId ?? null, ...error };
  });
}

/**
 * Keeps a group chat's participants and join requests current from `group_participants_update` (CONTRACT §11, §16).
 * Members are named by phone number or user id. `joined` is published for those who were not members, `left` /
 * `removed` only for those who were (or had a join request); a notification older than the last one applied to a
 * member changes nothing about that member and publishes nothing for them.
 */
export async function applyParticipantsUpdate(deps: NetworkUpdateDeps, notification: GroupNotification): Promise<void> {
  const { group: event } = notification;
  const link = event.group_id ? await deps.chats.findExternalChat(event.group_id) : undefined;
  if (!link) {
    logger.info('participants update for an unknown group ignored', { groupId: event.group_id, type: event.type });
    return;
  }
  const at = notificationTime(event.timestamp, deps.clock.now()).toISOString();
  switch (event.type) {
    case 'group_join_request_created':
    case 'group_join_request_revoked':
      return applyJoinRequest(deps, notification, link, at);
    case 'group_participants_add':
      return applyAdded(deps, notification, link, at);
    case 'group_participants_remove':
      return applyRemoved(deps, notification, link, at);
    default:
      logger.info('participants update type not handled', { type: event.type });
  }
}

/** A join request made or withdrawn: the chat's list of join requests. */
async function applyJoinRequest(
  deps: NetworkUpdateDeps,
  notification: GroupNotification,
  link: ExternalChatLink,
  at: string,
): Promise<void> {
  const { group: event } = notification;
  const { orgId, chatId } = link;
  const member = memberOf(event);
  if (!event.join_request_id) return;
  // Published when the list changes, or for the same request again (a repeat): never for a replay that finds
  // the request already listed since another time, or already gone.
  const changed =
    event.type === 'group_join_request_created'
      ? await deps.chats.putJoinRequest(orgId, chatId, {
          joinRequestId: event.join_request_id,
          phoneNumber: member?.phoneNumber ?? null,
          userId: member?.userId ?? null,
          createdAt: at,
        })
      : await deps.chats.deleteJoinRequest(orgId, chatId, event.join_request_id);
  if (!changed) return;
  const change = event.type === 'group_join_request_created' ? 'join_requested' : 'join_request_revoked';
  await publishOnce(deps, participantsEvent(link, notification, change, member ? [member] : [], at));
}

/** Members added: those who were not members join the chat's participants. */
async function applyAdded(
  deps: NetworkUpdateDeps,
  notification: GroupNotification,
  link: ExternalChatLink,
  at: string,
): Promise<void> {
  const { group: event } = notification;
  const { orgId, chatId } = link;
  const added = membersOf(event.added_participants);
  let applied: Member[] = [];
  let announced: Member[] = [];
  await deps.chats.updateChat(orgId, chatId, (chat) => {
    const times = chat.memberUpdatedAt ?? {};
    const changed = chat.changedAt ?? {};
    const current = chat.participants ?? [];
    applied = added.filter((member) => !isOlderFor(times, member, at));
    const fresh = applied.filter((member) => !current.some((existing) => sameParticipant(existing, member)));
    announced = applied.filter((member) => fresh.includes(member) || isRepeatFor(changed, member, at));
    const memberUpdatedAt = stamped(times, applied, at);
    if (!fresh.length && sameRecord(memberUpdatedAt, times)) return undefined;
    return {
      participants: [...current, ...fresh.map((member) => ({ ...member, joinedAt: at }))],
      memberUpdatedAt,
      ...(fresh.length ? { changedAt: stamped(changed, fresh, at), updatedAt: laterOf(chat.updatedAt, at) } : {}),
    };
  });
  // An approved join request arrives as this add, naming the joiner: the request leaves the list.
  if (applied.length) await removeJoinRequestsOf(deps, link, await joinRequestsOf(deps, link, applied));
  if (!announced.length) return;
  await publishOnce(deps, participantsEvent(link, notification, 'joined', announced, at));
}

/** Members removed or left: members and join requesters leave the chat's lists. */
async function applyRemoved(
  deps: NetworkUpdateDeps,
  notification: GroupNotification,
  link: ExternalChatLink,
  at: string,
): Promise<void> {
  const { group: event } = notification;
  const { orgId, chatId } = link;
  const removed = membersOf(event.removed_participants);
  const errors = removalErrors(event);
  if (!removed.length) {
    if (errors.length || event.errors?.length) {
      logger.warn('participant removal failed on the network; nothing changed', {
        groupId: event.group_id,
        code: event.errors?.[0]?.code ?? errors[0]?.code,
        failed: errors.length,
      });
    }
    return;
  }
  const requests = await joinRequestsOf(deps, link, removed);
  let announced: Member[] = [];
  await deps.chats.updateChat(orgId, chatId, (chat) => {
    const times = chat.memberUpdatedAt ?? {};
    const changed = chat.changedAt ?? {};
    const current = chat.participants ?? [];
    const applied = removed.filter((member) => !isOlderFor(times, member, at));
    const gone = applied.filter(
      (member) =>
        current.some((existing) => sameParticipant(existing, member)) ||
        requests.some((request) => sameParticipant(request, member)),
    );
    announced = applied.filter((member) => gone.includes(member) || isRepeatFor(changed, member, at));
    const memberUpdatedAt = stamped(times, applied, at);
    if (!gone.length && sameRecord(memberUpdatedAt, times)) return undefined;
    return {
      participants: current.filter((existing) => !gone.some((member) => sameParticipant(existing, member))),
      memberUpdatedAt,
      ...(gone.length ? { changedAt: stamped(changed, gone, at), updatedAt: laterOf(chat.updatedAt, at) } : {}),
    };
  });
  if (!announced.length) {
    logger.info('removal of no member nor join requester: nothing published', { groupId: event.group_id });
    return;
  }
  await removeJoinRequestsOf(
    deps,
    link,
    requests.filter((request) => announced.some((member) => sameParticipant(request, member))),
  );
  await publishOnce(deps, participantsEvent(link, notification, removalKind(event), announced, at, errors));
}

/** The join requests of any of `members`. */
async function joinRequestsOf(
  deps: NetworkUpdateDeps,
  link: { orgId: string; chatId: string },
  members: Member[],
): Promise<JoinRequest[]> {
  const found: JoinRequest[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await deps.chats.listJoinRequests(link.orgId, link.chatId, { limit: 100, startKey });
    found.push(...page.items.filter((request) => members.some((member) => sameParticipant(member, request))));
    startKey = page.nextKey;
  } while (startKey);
  return found;
}

/** Deletes join requests of members who joined (Meta approved them, or they joined by the link) or are gone. */
async function removeJoinRequestsOf(
  deps: NetworkUpdateDeps,
  link: { orgId: string; chatId: string },
  requests: JoinRequest[],
) {
  for (const request of requests) await deps.chats.deleteJoinRequest(link.orgId, link.chatId, request.joinRequestId);
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
  const from = phoneFromWaId(message.from) ?? message.from_user_id ?? 'unknown';
  const messageType = message.type ?? (message.text ? 'text' : 'unknown');
  const text = messageType === 'text' ? (message.text?.body ?? null) : null;
  // A message the network could not read (`unsupported`, 130501) carries its error; every other message has none.
  const error = messageType === 'unsupported' ? (firstError(message.errors, 'unsupported message type') ?? null) : null;
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
        message_type: messageType,
        text,
        error,
      },
    }),
  );
}

const NETWORK_STATUSES: MessageStatus[] = ['sent', 'delivered', 'read', 'failed'];

export type StatusDeps = Omit<NetworkUpdateDeps, 'ids'>;

/** A status kept until its wamid is linked, with the business number it was reported for. */
type HeldStatus = StatusNotification & { reportedFor?: string };

/**
 * Who reported a status, for holding it: the business number it came for, and the organisation that owns that number
 * (looked up only when the status has to be held).
 */
export interface StatusReporter {
  phoneNumberId?: string;
  orgId(): Promise<string | undefined>;
}

/** The reporter of a status Meta sent for `phoneNumberId`: the organisation whose channel has that number. */
export function reportedFor(
  identity: Pick<ChannelStore, 'findOrgByPhoneNumberId'>,
  phoneNumberId: string,
): StatusReporter {
  return { phoneNumberId, orgId: () => identity.findOrgByPhoneNumberId(phoneNumberId) };
}

/**
 * Applies the statuses that arrived before the wamid was linked (the sender calls it right after linking), in their
 * own order (sent, delivered, read), so that each is published as if it had come in time — only those reported for
 * the number that sent the message (`phoneNumberId`, CONTRACT §13): a status another number reported for this wamid,
 * kept because its lookup found nothing that number owns, is never applied.
 */
export async function applyHeldStatuses(
  deps: StatusDeps,
  orgId: string,
  networkMessageId: string,
  phoneNumberId: string,
) {
  const held = (await deps.chats.heldStatuses(orgId, networkMessageId)) as HeldStatus[];
  const rank = (status: StatusNotification) => STATUS_RANK[status.status as MessageStatus] ?? 0;
  const own = held.filter((status) => {
    if (status.reportedFor === undefined || status.reportedFor === phoneNumberId) return true;
    logger.warn('security: a status held for another number than the message’s is not applied', {
      reportedFor: status.reportedFor,
    });
    return false;
  });
  const reporter = { orgId: async () => orgId };
  for (const { reportedFor: _, ...status } of own.sort((a, b) => rank(a) - rank(b))) {
    await applyStatus(deps, status, reporter);
  }
}

/**
 * The group member a status names, for a receipt (CONTRACT §16): by `recipient_participant_id` (or its other
 * spelling) and `recipient_participant_user_id`; when the status names its group by `group_id` (Meta's OpenAPI
 * `Statuses`), `recipient_id` / `recipient_user_id` are the member's, unless they name the group itself.
 */
function recipientOf(status: StatusNotification): Member | undefined {
  const groupById =
    status.group_id !== undefined && status.recipient_type !== 'group' && status.recipient_id !== status.group_id;
  const id =
    status.recipient_participant_id ?? status.participant_recipient_id ?? (groupById ? status.recipient_id : undefined);
  const userId = status.recipient_participant_user_id ?? (groupById ? status.recipient_user_id : undefined);
  if (!id && !userId) return undefined;
  return memberOf(id && PHONE_LIKE.test(id) ? { wa_id: id, user_id: userId } : { user_id: id ?? userId });
}

/**
 * Applies Meta's status of an outbound message (CONTRACT §5, §16).
 * 1. A status for a wamid not linked yet (or linked to a chat of another number than the reporter's) is held for the
 *    sender (one per status and member), with the number it was reported for, in the partition of the organisation
 *    that owns that number (CONTRACT §25); one reported for a number no channel has is not kept (CONTRACT §13).
 * 2. A `delivered` / `read` naming a group member is kept as that member's receipt: each of the two once, with its
 *    own time, so a member's `delivered` stays listed after its `read`.
 * 3. The message's own status is the furthest any recipient reached (`sent` < `delivered` < `read`, never back);
 *    `failed` only from a failure that names no member.
 * 4. `message.status` is published once per status the message reaches, naming the member whose receipt moved it.
 */
export async function applyStatus(
  deps: StatusDeps,
  status: StatusNotification,
  reporter?: StatusReporter,
): Promise<void> {
  const next = status.status as MessageStatus;
  if (!NETWORK_STATUSES.includes(next)) return;
  const recipient = recipientOf(status);
  let link = await deps.chats.findNetworkMessage(status.id);
  if (!link) {
    // Meta can notify before the sender has linked the id it answered with: keep the status for the sender, then
    // look again, since the sender may have linked and read the held statuses in between (one of the two sees both).
    const heldAs = [next, ...(recipient ? memberKeys(recipient) : [])].join('#');
    const reportedFor = reporter?.phoneNumberId;
    const kept: HeldStatus = reportedFor === undefined ? status : { ...status, reportedFor };
    const orgId = await reporter?.orgId();
    if (orgId === undefined) {
      logger.warn('security: status for an unlinked message id reported for a number of no channel ignored', {
        reportedFor,
      });
      return;
    }
    await deps.chats.holdStatus(orgId, status.id, heldAs, kept, deps.clock.now());
    link = await deps.chats.findNetworkMessage(status.id);
    if (!link) {
      logger.info('status held until its message is linked', { status: next });
      return;
    }
  }
  const at = notificationTime(status.timestamp, deps.clock.now()).toISOString();
  if (recipient && next === 'failed') {
    // One member's failure does not fail a message the others may have received.
    logger.info('a group member could not receive a message', { code: status.errors?.[0]?.code });
    return;
  }
  if (recipient && (next === 'delivered' || next === 'read')) {
    await deps.chats.putReceipt(link.orgId, link.chatId, link.messageId, { ...recipient, status: next, at });
  }
  const from =
    next === 'failed'
      ? (['queued', 'sent'] as MessageStatus[])
      : (Object.keys(STATUS_RANK) as MessageStatus[]).filter(
          (candidate) => STATUS_RANK[candidate] < STATUS_RANK[next] && candidate !== 'failed',
        );
  const error = next === 'failed' ? firstError(status.errors, 'the network could not deliver the message') : undefined;
  const failure =
    error ??
    (next === 'failed'
      ? { code: 'NETWORK_REJECTED', message: 'the network could not deliver the message' }
      : undefined);
  const moved = await deps.chats.updateMessage(
    link.orgId,
    link.chatId,
    link.messageId,
    { from },
    { status: next, ...(failure ? { error: failure } : {}) },
  );
  if (moved) {
    await deps.chats.touchChat(link.orgId, link.chatId, at);
  } else {
    // Not moved: a repeat (publish what a crash may have left unpublished) or a status overtaken by a later one.
    const current = await deps.chats.getMessage(link.orgId, link.chatId, link.messageId);
    if (current?.status !== next) return;
  }
  await publishOnce(deps, messageStatusEvent(link, status.id, next, at, failure, recipient));
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
  participant?: Member,
) {
  return notificationEvent('message.status', `${networkMessageId}:${status}`, {
    orgId: link.orgId,
    occurredAt,
    data: {
      chat_id: link.chatId,
      message_id: link.messageId,
      status,
      error: error ?? null,
      participant: participant ? { phone_number: participant.phoneNumber, user_id: participant.userId } : null,
    },
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
