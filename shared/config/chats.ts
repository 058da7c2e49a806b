import type { listChannels } from '#shared/domain/channels/list-channels';
import type { getChat, listMessages, listReceipts, sendMessage } from '#shared/domain/chats/chats';
import type { deliverMessage } from '#shared/domain/chats/deliver-message';
import type {
  decideJoinRequests,
  inviteParticipants,
  listJoinRequests,
  listParticipants,
} from '#shared/domain/chats/group-members';
import type { getGroup, listGroups } from '#shared/domain/groups/group-lifecycle';
import { clock, config, ids } from './core.ts';
import { chatStore, eventOutbox, identityStore, limits } from './dynamodb.ts';
import { eventPublisher } from './eventbridge.ts';
import { type DepsOf, instance, lazyDeps } from './instances.ts';
import { cursorKey } from './keys.ts';
import { channelCredentials, messagingNetwork } from './network.ts';
import { jobQueue } from './sqs.ts';

export function channelListDeps(): DepsOf<typeof listChannels> {
  return instance(channelListDeps, () => lazyDeps({ identity: identityStore, cursorKey }));
}

/** Reading a chat, its messages, and its assignment. */
export function chatDeps(): DepsOf<typeof getChat> {
  return instance(chatDeps, () => lazyDeps({ clock, chats: chatStore }));
}

export function messageListDeps(): DepsOf<typeof listMessages> {
  return instance(messageListDeps, () => lazyDeps({ clock, chats: chatStore, cursorKey }));
}

export function sendMessageDeps(): DepsOf<typeof sendMessage> {
  return instance(sendMessageDeps, () =>
    lazyDeps({ config, clock, ids, chats: chatStore, identity: identityStore, queue: jobQueue, limits }),
  );
}

/** Group listings read only the table. */
export function groupReadDeps(): DepsOf<typeof listParticipants> {
  return instance(groupReadDeps, () => lazyDeps({ chats: chatStore, identity: identityStore }));
}

/** The group listing: the chat records and the cursor key. */
export function groupListDeps(): DepsOf<typeof listGroups> {
  return instance(groupListDeps, () => lazyDeps({ chats: chatStore, cursorKey }));
}

/** One group: the chat record only. */
export function groupDeps(): DepsOf<typeof getGroup> {
  return instance(groupDeps, () => lazyDeps({ chats: chatStore }));
}

export function joinRequestListDeps(): DepsOf<typeof listJoinRequests> {
  return instance(joinRequestListDeps, () => lazyDeps({ chats: chatStore, identity: identityStore, cursorKey }));
}

/** Group actions call the network with the channel's credentials. */
export function groupMemberDeps(): DepsOf<typeof decideJoinRequests> {
  return instance(groupMemberDeps, () =>
    lazyDeps({
      clock,
      chats: chatStore,
      identity: identityStore,
      network: messagingNetwork,
      channelCredentials,
    }),
  );
}

/** Invitations are messages: the group actions' ports and the message rate window. */
export function inviteDeps(): DepsOf<typeof inviteParticipants> {
  return instance(inviteDeps, () =>
    lazyDeps({
      config,
      clock,
      chats: chatStore,
      identity: identityStore,
      network: messagingNetwork,
      channelCredentials,
      limits,
    }),
  );
}

export function messageSenderDeps(): DepsOf<typeof deliverMessage> {
  return instance(messageSenderDeps, () =>
    lazyDeps({
      config,
      clock,
      chats: chatStore,
      identity: identityStore,
      network: messagingNetwork,
      channelCredentials,
      events: eventPublisher,
      outbox: eventOutbox,
    }),
  );
}

export function receiptListDeps(): DepsOf<typeof listReceipts> {
  return instance(receiptListDeps, () => lazyDeps({ clock, chats: chatStore, cursorKey }));
}
