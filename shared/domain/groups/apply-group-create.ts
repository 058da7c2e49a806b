import { membersOf } from '#shared/domain/chats/network-updates';
import { type GroupEvent, joinApprovalOf, notificationTime } from '#shared/domain/network/notification';
import { logger } from '#shared/observability/logger';
import type { ChannelCredentials } from '#shared/ports/channel-credentials';
import type { ChannelStore } from '#shared/ports/identity-store';
import {
  completeGroup,
  failGroup,
  type NetworkAccess,
  networkAccess,
  networkFailure,
  type OutcomeDeps,
} from './outcomes.ts';

/** One `group_create` object of a `group_lifecycle_update`, with the number it was reported for. */
export interface HeldGroupCreate {
  phoneNumberId: string;
  group: Pick<
    GroupEvent,
    'request_id' | 'group_id' | 'invite_link' | 'join_approval_mode' | 'added_participants' | 'timestamp' | 'errors'
  >;
}

export interface ApplyGroupCreateDeps extends OutcomeDeps {
  identity: ChannelStore;
  channelCredentials: ChannelCredentials;
}

/**
 * Applies Meta's answer to a group creation (CONTRACT §5).
 * 1. Find our request through Meta's request_id. Not linked yet → keep the notification, if it is for a number of
 *    ours (the worker applies it once it links the id); re-check the link afterwards, so a link written meanwhile is
 *    not missed.
 * 2. Ignore a notification reported for another number than the request's (a cross-tenant or forged id).
 * 3. Errors → `failed` with Meta's code and message; success → the chat, `created`, `group.created`, with the
 *    notification's invite link, else the one Meta gives through the network gate; while the gate refuses the
 *    channel, a success without a link is kept for the worker, and nothing reaches Meta. The chat's members are the
 *    notification's `added_participants` (CONTRACT §16), its join approval the notification's mode, else the request's.
 */
export async function applyGroupCreateNotification(deps: ApplyGroupCreateDeps, held: HeldGroupCreate): Promise<void> {
  const networkRequestId = held.group.request_id;
  if (!networkRequestId) {
    logger.warn('group_create notification without request_id ignored', { groupId: held.group.group_id });
    return;
  }
  const link = await requestLink(deps, held, networkRequestId);
  if (!link) return;
  const request = await deps.groups.get(link.orgId, link.requestId);
  if (!request) return;
  const errors = held.group.errors ?? [];
  if (errors.length > 0) {
    const [first] = errors;
    await failGroup(
      deps,
      request,
      networkFailure(first?.code, first?.message ?? first?.title ?? 'group creation failed'),
    );
    return;
  }
  const groupId = held.group.group_id;
  if (!groupId) {
    logger.warn('group_create success without group_id ignored', { networkRequestId });
    return;
  }
  const channel = await deps.identity.getChannel(request.orgId, request.channelId);
  if (!channel) return;
  // Meta made the group, so it is recorded whatever the channel's state; Meta itself is asked (for a link the
  // notification lacks, or to delete an orphan) only through the network gate, which refuses a disabled channel
  // or a suspended organisation (CONTRACT §17).
  const network = networkAccess(deps.channelCredentials, channel);
  const inviteLink = held.group.invite_link ?? (await inviteLinkOf(deps, network, groupId));
  if (inviteLink === undefined) {
    // `group.created` carries the link, and Meta may not be asked for it now: the confirmation is kept, and the worker
    // applies it again each time the request is queued (the sweeper queues a stalled one every two minutes), so the
    // group is completed once the channel is let through again.
    await deps.groups.holdConfirmation(request.orgId, networkRequestId, trimmed(held), deps.clock.now());
    logger.warn('group confirmed without an invite link while the network gate refuses its channel; kept', {
      networkRequestId,
      requestId: request.requestId,
      channelId: request.channelId,
    });
    return;
  }
  await completeGroup(
    deps,
    request,
    {
      groupId,
      inviteLink,
      phoneNumberId: held.phoneNumberId,
      members: membersOf(held.group.added_participants),
      requireJoinApproval: joinApprovalOf(held.group.join_approval_mode),
      at: notificationTime(held.group.timestamp, deps.clock.now()).toISOString(),
    },
    network,
  );
}

/**
 * Steps 1 and 2: the request's link to Meta's request_id, if the notification is for the request's number. Not
 * linked yet: the notification is kept (for a number of ours) and the link read again.
 */
async function requestLink(deps: ApplyGroupCreateDeps, held: HeldGroupCreate, networkRequestId: string) {
  let link = await deps.groups.findNetworkRequest(networkRequestId);
  if (!link) {
    // Kept only for a number of ours, with the organisation that owns it (CONTRACT §25), trimmed to what is applied
    // later, and expiring (TTL): an unknown request id for a number we do not serve is no confirmation of ours
    // (CONTRACT §13).
    const channel = held.phoneNumberId ? await deps.identity.findChannelByPhoneNumberId(held.phoneNumberId) : undefined;
    if (!channel) {
      logger.warn('security: group_create notification for an unknown request id and number ignored', {
        networkRequestId,
        reportedFor: held.phoneNumberId,
      });
      return undefined;
    }
    await deps.groups.holdConfirmation(channel.orgId, networkRequestId, trimmed(held), deps.clock.now());
    link = await deps.groups.findNetworkRequest(networkRequestId);
    if (!link) {
      logger.warn('group_create notification for an unknown request id kept until the request catches up', {
        networkRequestId,
      });
      return undefined;
    }
  }
  if (link.phoneNumberId !== held.phoneNumberId) {
    logger.warn('security: group_create notification for another number than the request’s ignored', {
      networkRequestId,
      reportedFor: held.phoneNumberId,
    });
    return undefined;
  }
  return link;
}

async function inviteLinkOf(deps: ApplyGroupCreateDeps, network: NetworkAccess, groupId: string) {
  const channel = await network();
  return channel && (await deps.network.getInviteLink(channel, groupId));
}

const MAX_HELD_TEXT = 2048;
const clip = (text: string | undefined) => text?.slice(0, MAX_HELD_TEXT);

/** Meta's limit of participants besides the business, and a bound on what a held item keeps of them. */
const MAX_HELD_PARTICIPANTS = 8;

/** Only the fields the worker applies, each bounded: a held item never grows with what the sender chose to send. */
function trimmed(held: HeldGroupCreate): HeldGroupCreate {
  const { request_id, group_id, invite_link, join_approval_mode, added_participants, timestamp, errors } = held.group;
  const [first] = errors ?? [];
  return {
    phoneNumberId: held.phoneNumberId.slice(0, 64),
    group: {
      request_id: clip(request_id),
      group_id: clip(group_id),
      invite_link: clip(invite_link),
      ...(timestamp !== undefined ? { timestamp } : {}),
      ...(typeof join_approval_mode === 'string' ? { join_approval_mode: clip(join_approval_mode) } : {}),
      ...(added_participants
        ? {
            added_participants: added_participants
              .slice(0, MAX_HELD_PARTICIPANTS)
              .map(({ wa_id, user_id, input }) => ({ wa_id: clip(wa_id), user_id: clip(user_id), input: clip(input) })),
          }
        : {}),
      ...(first ? { errors: [{ code: first.code, message: clip(first.message), title: clip(first.title) }] } : {}),
    },
  };
}
