import { describe, expect, it } from 'vitest';
import { newChat } from '#shared/domain/chats/chat';
import {
  type GroupMemberDeps,
  getInviteLink,
  listJoinRequests,
  listParticipants,
} from '#shared/domain/chats/group-members';
import type { Channel } from '#shared/domain/orgs/model';
import type { CursorKey } from '#shared/ports/cursor-key';

const ORG = 'a0b1c2d3-0000-4000-8000-000000000001';

function fakes() {
  const credentialReads: string[] = [];
  const chat = {
    ...newChat({
      chatId: 'cht_1',
      orgId: ORG,
      name: 'Crew',
      chatType: 'GROUP',
      channelId: 'ch_1',
      now: '2026-11-23T00:00:00Z',
    }),
    externalChatId: 'G1',
    participants: [{ phoneNumber: '+4915100000001', userId: null, joinedAt: '2026-11-23T00:00:00Z' }],
  };
  const deps = {
    clock: { now: () => new Date('2026-11-23T00:00:00Z') },
    chats: {
      getChat: async (_org: string, chatId: string) => (chatId === chat.chatId ? chat : undefined),
      listJoinRequests: async () => ({ items: [], nextKey: undefined }),
      updateChat: async () => chat,
    },
    identity: { getChannel: async () => ({ channelId: 'ch_1', phoneNumberId: '1' }) as Channel },
    cursorKey: { get: async () => new Uint8Array(32) },
    network: { getInviteLink: async () => 'https://chat.whatsapp.com/x' },
    channelCredentials: {
      forChannel: async (channel: Channel) => {
        credentialReads.push(channel.channelId);
        return { phoneNumberId: '1', accessToken: 't' };
      },
    },
  } as unknown as GroupMemberDeps & { cursorKey: CursorKey };
  return { deps, credentialReads };
}

describe('group members', () => {
  it('lists participants and join requests without reading the channel credentials', async () => {
    const { deps, credentialReads } = fakes();

    const participants = await listParticipants(deps, { orgId: ORG, chatId: 'cht_1' });
    const joinRequests = await listJoinRequests(deps, { orgId: ORG, chatId: 'cht_1', limit: 20 });

    expect(participants.participants).toHaveLength(1);
    expect(joinRequests.joinRequests).toEqual([]);
    expect(credentialReads).toEqual([]);
  });

  it('reads the channel credentials for a call to the network', async () => {
    const { deps, credentialReads } = fakes();

    const link = await getInviteLink(deps, { orgId: ORG, chatId: 'cht_1' });

    expect(link.inviteLink).toBe('https://chat.whatsapp.com/x');
    expect(credentialReads).toEqual(['ch_1']);
  });
});
