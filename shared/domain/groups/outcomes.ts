import { newChat } from '#shared/domain/chats/chat';
import { type Member, stamped } from '#shared/domain/chats/network-updates';
import type { Channel } from '#shared/domain/orgs/model';
import { ChannelDisabledError, OrgSuspendedError } from '#shared/errors';
import { eventIdFor } from '#shared/events/domain-event';
import { logger } from '#shared/observability/logger';
import { countBusiness } from '#shared/observability/metrics';
import type { ChannelCredentials } from '#shared/ports/channel-credentials';
import type { ChatStore } from '#shared/ports/chat-store';
import type { Clock } from '#shared/ports/clock';
import type { EventPublisher } from '#shared/ports/event-publisher';
import type { GroupRequestStore } from '#shared/ports/group-request-store';
import type { MessagingNetwork, NetworkChannel } from '#shared/ports/messaging-network';
import { chatIdFor, type GroupRequest, type GroupRequestError, OPEN_STATUSES } from './group-request.ts';

export interface OutcomeDeps {
  clock: Clock;
  groups: GroupRequestStore;
  chats: ChatStore;
  events: EventPublisher;
  network: MessagingNetwork;
}

export interface CreatedGroup {
  groupId: string;
  inviteLink: string;
  phoneNumberId: string;
  /** The members Meta's confirmation lists (`added_participants`), members as of `at`, the confirmation's time. */
  members?: Member[];
  at?: string;
  /** The join approval Meta's confirmation states; else the request's. */
  requireJoinApproval?: boolean;
}

/** The event a final request announces. */
export function finalEvent(request: GroupRequest) {
  const common = { request_id: request.requestId, organisation_id: request.orgId, channel_id: request.channelId };
  if (request.status === 'created') {
    return {
      eventId: eventIdFor('group.created', request.requestId),
      type: 'group.created' as const,
      organisationId: request.orgId,
      occurredAt: request.updatedAt,
      data: { ...common, chat_id: request.chatId, subject: request.subject, invite_link: request.inviteLink },
    };
  }
  return {
    eventId: eventIdFor('group.creation_failed', request.requestId),
    type: 'group.creation_failed' as const,
    organisationId: request.orgId,
    occurredAt: request.updatedAt,
    data: { ...common, error: request.error },
  };
}

/** Publishes the final state's event, then stamps it; a crash in between leaves it to the sweeper. */
export async function announce(deps: Pick<OutcomeDeps, 'clock' | 'groups' | 'events'>, request: GroupRequest) {
  await deps.events.publish([finalEvent(request)]);
  await deps.groups.markPublished(request.orgId, request.requestId, deps.clock.now().toISOString());
}

/**
 * The network confirmed the group.
 * 1. Store the GROUP chat under an id derived from the request's (a repeat finds it stored), with the members the
 *    confirmation lists.
 * 2. Move the request to `created` (only from pending/creating).
 * 3. Announce `group.created` — only by the call that made the transition, so replays publish nothing.
 * A request that already failed stays failed, and the group the network made anyway is deleted, unless the network
 * gate refuses the channel (disabled, or its organisation suspended): then nothing reaches Meta, and the orphan is
 * logged for the operator.
 */
export async function completeGroup(
  deps: OutcomeDeps,
  request: GroupRequest,
  group: CreatedGroup,
  network: NetworkAccess,
) {
  if (request.status === 'failed') {
    const channel = await network();
    if (!channel) {
      logger.warn('confirmation for a failed group request on a refused channel; the orphan group is left on Meta', {
        requestId: request.requestId,
        groupId: group.groupId,
      });
      return;
    }
    logger.warn('confirmation for a failed group request; deleting the orphan group', {
      requestId: request.requestId,
      groupId: group.groupId,
    });
    await deps.network.deleteGroup(channel, group.groupId);
    return;
  }
  if (request.status === 'created') return;
  const now = deps.clock.now().toISOString();
  const chatId = chatIdFor(request.requestId);
  const members = group.members ?? [];
  const joinedAt = group.at ?? now;
  const chat = newChat({
    chatId,
    orgId: request.orgId,
    name: request.subject,
    chatType: 'GROUP',
    channelId: request.channelId,
    externalChatId: group.groupId,
    inviteLink: group.inviteLink,
    participants: members.map((member) => ({ ...member, joinedAt })),
    ...(members.length ? { memberUpdatedAt: stamped({}, members, joinedAt) } : {}),
    requireJoinApproval: group.requireJoinApproval ?? request.requireJoinApproval,
    ...(request.description !== undefined ? { description: request.description } : {}),
    groupStatus: 'active',
    now,
  });
  // The network's group id is linked first, and once (CONTRACT §13): an id already linked to another chat is never
  // re-pointed, and this request is left to time out rather than take over that group.
  const linked = await deps.chats.linkExternalChat(group.groupId, {
    orgId: request.orgId,
    chatId,
    phoneNumberId: group.phoneNumberId,
  });
  if (!linked) {
    logger.error('security: network group id already linked to another chat; not linked again', {
      requestId: request.requestId,
      groupId: group.groupId,
    });
    return;
  }
  await deps.chats.createChat(chat);
  const created = await deps.groups.transition(request.orgId, request.requestId, OPEN_STATUSES, 'created', {
    now,
    chatId,
    inviteLink: group.inviteLink,
  });
  if (created) {
    countBusiness('groupsCreated');
    await announce(deps, created);
    return;
  }
  const current = await deps.groups.get(request.orgId, request.requestId);
  if (current?.status === 'failed') await completeGroup(deps, current, group, network);
}

/**
 * The channel's credentials, asked of the network gate only when a call to Meta is needed: undefined when the gate
 * refuses the channel (ChannelDisabledError, OrgSuspendedError), for the paths that then do without Meta.
 */
export type NetworkAccess = () => Promise<NetworkChannel | undefined>;

export function networkAccess(credentials: ChannelCredentials, channel: Channel): NetworkAccess {
  let pass: Promise<NetworkChannel | undefined> | undefined;
  return () => {
    pass ??= credentials.forChannel(channel).catch((error: unknown) => {
      if (error instanceof ChannelDisabledError || error instanceof OrgSuspendedError) return undefined;
      throw error;
    });
    return pass;
  };
}

/** Credentials a caller already obtained through the gate. */
export const granted =
  (channel: NetworkChannel): NetworkAccess =>
  async () =>
    channel;

/** The request failed: move it to `failed` (only from pending/creating) and announce `group.creation_failed` once. */
export async function failGroup(
  deps: Pick<OutcomeDeps, 'clock' | 'groups' | 'events'>,
  request: GroupRequest,
  error: GroupRequestError,
) {
  const failed = await deps.groups.transition(request.orgId, request.requestId, OPEN_STATUSES, 'failed', {
    now: deps.clock.now().toISOString(),
    error,
  });
  if (failed) {
    countBusiness('groupsFailed');
    await announce(deps, failed);
  }
  return failed;
}

/** Meta's code as the request's error code; 131215 (number not eligible) is our CHANNEL_NOT_ELIGIBLE. */
export function networkFailure(code: number | undefined, message: string): GroupRequestError {
  if (code === 131215) return { code: 'CHANNEL_NOT_ELIGIBLE', message };
  return { code: code === undefined ? 'NETWORK_REJECTED' : String(code), message };
}
