import { describe, expect, it } from 'vitest';
import { deps } from '#shared/config/deps';
import { newChat } from '#shared/domain/chats/chat';
import { createChannel } from '#shared/domain/orgs/administer';
import { createdGroup } from '#test/support/groups';
import { eventually, useLocalStack } from '#test/support/local-stack';

interface GroupView {
  chatId: string;
  channelId: string;
  externalChatId: string;
  subject: string;
  description: string | null;
  groupStatus: string;
  joinApprovalRequired: boolean;
  participantCount: number;
}

const problem = async (response: Response) => (await response.json()) as { code: string; networkCode?: number };

describe('GET /groups/:orgId and /groups/:orgId/:chatId', () => {
  const api = useLocalStack();

  it('lists groups newest first, filtered by channel and status, page by page', async () => {
    const token = await api.token('CRM_BOT');
    const first = await createdGroup(api, token, 'Older');
    const second = await createdGroup(api, token, 'Newer');
    const { channelId: otherChannel } = await createChannel(deps(), {
      orgId: api.orgId,
      name: 'Second number',
      type: 'MESSAGING_OFFICIAL',
      phoneNumber: '+4915100000077',
      officialBusinessAccount: true,
      phoneNumberId: '100000000000077',
      accessToken: 't',
    });

    const page = (await (await api.call(`/groups/${api.orgId}?limit=1`, { token })).json()) as {
      groups: GroupView[];
      nextCursor: string;
    };
    const rest = (await (
      await api.call(`/groups/${api.orgId}?limit=1&cursor=${page.nextCursor}`, { token })
    ).json()) as { groups: GroupView[] };
    const ofChannel = (await (
      await api.call(`/groups/${api.orgId}?channelId=${api.stack.demo!.channels.eligible}&groupStatus=active`, {
        token,
      })
    ).json()) as { groups: GroupView[] };
    const ofOther = (await (await api.call(`/groups/${api.orgId}?channelId=${otherChannel}`, { token })).json()) as {
      groups: GroupView[];
    };
    const deleted = (await (await api.call(`/groups/${api.orgId}?groupStatus=deleted`, { token })).json()) as {
      groups: GroupView[];
    };

    expect(page.groups.map((group) => group.chatId)).toEqual([second.chatId]);
    expect(rest.groups.map((group) => group.chatId)).toEqual([first.chatId]);
    expect(ofChannel.groups.map((group) => group.chatId)).toEqual([second.chatId, first.chatId]);
    expect(ofOther.groups).toEqual([]);
    expect(deleted.groups).toEqual([]);
    expect(page.groups[0]).toEqual({
      chatId: second.chatId,
      channelId: api.stack.demo!.channels.eligible,
      externalChatId: second.groupId,
      subject: 'Newer',
      description: null,
      groupStatus: 'active',
      joinApprovalRequired: true,
      participantCount: 0,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it('reads one group with its participant count', async () => {
    const token = await api.token('CRM_ADMIN');
    const { chatId, groupId } = await createdGroup(api, token, 'Counted');
    api.stack.simulator!.join(groupId, '4915100000011');
    await api.stack.simulator!.flushWebhooks();

    const group = await eventually(async () => {
      const response = await api.call(`/groups/${api.orgId}/${chatId}`, { token });
      expect(response.status).toBe(200);
      const body = (await response.json()) as GroupView;
      expect(body.participantCount).toBe(1);
      return body;
    });

    expect(group).toMatchObject({ chatId, subject: 'Counted', groupStatus: 'active', externalChatId: groupId });
  });

  it('answers 400 for a bad filter or cursor, 403 for an agent, 404 and 422 NOT_A_GROUP', async () => {
    const token = await api.token('CRM_ADMIN');
    await deps().chats.createChat(
      newChat({
        chatId: 'cht_individual',
        orgId: api.orgId,
        name: 'One to one',
        chatType: 'INDIVIDUAL',
        channelId: api.stack.demo!.channels.eligible,
        now: new Date().toISOString(),
      }),
    );

    const badStatus = await api.call(`/groups/${api.orgId}?groupStatus=gone`, { token });
    const badCursor = await api.call(`/groups/${api.orgId}?cursor=abc`, { token });
    const agent = await api.call(`/groups/${api.orgId}`, { token: await api.token('CRM_AGENT') });
    const missing = await api.call(`/groups/${api.orgId}/cht_nope`, { token });
    const notGroup = await api.call(`/groups/${api.orgId}/cht_individual`, { token });

    expect(badStatus.status).toBe(400);
    expect(badCursor.status).toBe(400);
    expect(agent.status).toBe(403);
    expect(missing.status).toBe(404);
    expect((await problem(missing)).code).toBe('CHAT_NOT_FOUND');
    expect(notGroup.status).toBe(422);
    expect((await problem(notGroup)).code).toBe('NOT_A_GROUP');
  });
});
