import { describe, expect, it } from 'vitest';
import { newChat } from '#shared/domain/chats/chat';
import {
  type GroupMemberDeps,
  getInviteLink,
  inviteParticipants,
  listJoinRequests,
  listParticipants,
} from '#shared/domain/chats/group-members';
import type { Channel } from '#shared/domain/orgs/model';
import type { CursorKey } from '#shared/ports/cursor-key';
import { NetworkError } from '#shared/ports/messaging-network';

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

  describe('invitations use the channel’s invite template (CONTRACT §16)', () => {
    const invite = async (channel: Partial<Channel>, refuse?: string) => {
      const { deps } = fakes();
      const sent: unknown[] = [];
      const quota = { limit: 100, windowSeconds: 60 };
      const all = Object.assign(deps, {
        identity: { getChannel: async () => ({ channelId: 'ch_1', phoneNumberId: '1', ...channel }) as Channel },
        config: { messaging: { sendRateLimit: quota } },
        limits: { take: async () => ({ allowed: true }) },
        network: {
          sendGroupInvite: async (_: unknown, phoneNumber: string, groupId: string, template: unknown) => {
            sent.push({ phoneNumber, groupId, template });
            if (phoneNumber === refuse) {
              throw new NetworkError('rejected', '(#132001) Template name does not exist in the translation', {
                code: 132001,
                httpStatus: 404,
              });
            }
            return { networkMessageId: `wamid.${phoneNumber}` };
          },
        },
      }) as unknown as Parameters<typeof inviteParticipants>[0];
      const result = await inviteParticipants(all, {
        orgId: ORG,
        chatId: 'cht_1',
        phoneNumbers: ['+4915100000002', '+4915100000003'],
      });
      return { sent, result };
    };

    it('sends the template the channel names, in its language', async () => {
      const { sent } = await invite({ inviteTemplate: { name: 'acme_group_invite', language: 'de' } });

      expect(sent).toEqual([
        { phoneNumber: '+4915100000002', groupId: 'G1', template: { name: 'acme_group_invite', language: 'de' } },
        { phoneNumber: '+4915100000003', groupId: 'G1', template: { name: 'acme_group_invite', language: 'de' } },
      ]);
    });

    it('sends group_invite_link in en_US for a channel that names none', async () => {
      const { sent } = await invite({});

      expect(sent).toContainEqual(
        expect.objectContaining({ template: { name: 'group_invite_link', language: 'en_US' } }),
      );
    });

    it("reports Meta refusing the template (132001) as that invitation's error, with Meta's code and message", async () => {
      const { result } = await invite(
        { inviteTemplate: { name: 'missing_template', language: 'en' } },
        '+4915100000003',
      );

      expect(result.invitations).toEqual([
        { phoneNumber: '+4915100000002', status: 'sent', messageId: 'wamid.+4915100000002' },
        {
          phoneNumber: '+4915100000003',
          status: 'failed',
          error: { code: '132001', message: '(#132001) Template name does not exist in the translation' },
        },
      ]);
    });
  });
});
