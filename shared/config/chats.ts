import type { listChannels } from '#shared/domain/channels/list-channels';
import type { getChat, sendMessage } from '#shared/domain/chats/chats';
import type { deliverMessage } from '#shared/domain/chats/deliver-message';
import type { decideJoinRequests, listParticipants } from '#shared/domain/chats/group-members';
import type { listGroups } from '#shared/domain/groups/group-lifecycle';
import { clock, config, ids } from './core.ts';
import { chatStore, identityStore } from './dynamodb.ts';
import { type DepsOf, instance, lazyDeps } from './instances.ts';
import { channelCredentials, messagingNetwork } from './network.ts';
import { jobQueue } from './sqs.ts';

export function channelListDeps(): DepsOf<typeof listChannels> {
  return instance(channelListDeps, () => lazyDeps({ identity: identityStore }));
}

/** Reading a chat, its messages, and its assignment. */
export function chatDeps(): DepsOf<typeof getChat> {
  return instance(chatDeps, () => lazyDeps({ clock, chats: chatStore }));
}

export function sendMessageDeps(): DepsOf<typeof sendMessage> {
  return instance(sendMessageDeps, () =>
    lazyDeps({ clock, ids, chats: chatStore, identity: identityStore, queue: jobQueue }),
  );
}

/** Group listings read only the table. */
export function groupReadDeps(): DepsOf<typeof listParticipants> {
  return instance(groupReadDeps, () => lazyDeps({ chats: chatStore, identity: identityStore }));
}

/** The group listing and one group: the chat records only. */
export function groupListDeps(): DepsOf<typeof listGroups> {
  return instance(groupListDeps, () => lazyDeps({ chats: chatStore }));
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

export function messageSenderDeps(): DepsOf<typeof deliverMessage> {
  return instance(messageSenderDeps, () =>
    lazyDeps({
      config,
      clock,
      chats: chatStore,
      identity: identityStore,
      network: messagingNetwork,
      channelCredentials,
    }),
  );
}
