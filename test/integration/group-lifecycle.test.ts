import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deps } from '#shared/config/deps';
import { newChat } from '#shared/domain/chats/chat';
import { createChannel } from '#shared/domain/orgs/administer';
import { createdGroup } from '#test/support/groups';
import { eventually, useLocalStack } from '#test/support/local-stack';
import { useReceiver } from '#test/support/receiver';

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

describe('group lifecycle through the simulator, and the events it publishes', () => {
  const api = useLocalStack({ NETWORK_RETRY_BASE_SECONDS: '1' });
  const receiver = useReceiver();
  const simulator = () => api.stack.simulator!;
  let admin: string;

  beforeAll(async () => {
    admin = await api.token('CRM_ADMIN');
    const response = await api.call(`/webhooks/${api.orgId}`, {
      method: 'POST',
      token: admin,
      json: { url: `${receiver.url}/all` },
    });
    expect(response.status).toBe(201);
    expect(((await response.json()) as { events: string[] }).events).toEqual(['*']);
  });

  afterEach(() => simulator().setDuplicates(0));

  const published = (type: string, chatId: string) =>
    api.stack.bus.published.filter((event) => event['detail-type'] === type && event.detail.chat_id === chatId);
  const delivered = (type: string, chatId: string) =>
    receiver
      .requestsTo('/all')
      .map((request) => ({ id: request.headers['webhook-id'], body: JSON.parse(request.body) }))
      .filter((request) => request.body.type === type && request.body.chat_id === chatId);
  /** Exactly one event of `type` about `chatId` was published and delivered; returns its body. */
  const exactlyOnce = async (type: string, chatId: string, count = 1) => {
    await simulator().flushWebhooks();
    const deliveries = await eventually(() => {
      const found = delivered(type, chatId);
      expect(found).toHaveLength(count);
      return found;
    });
    expect(published(type, chatId)).toHaveLength(count);
    expect(new Set(deliveries.map((delivery) => delivery.id)).size).toBe(count);
    return deliveries.map((delivery) => delivery.body as Record<string, unknown>);
  };
  const patch = (chatId: string, json: unknown) =>
    api.call(`/groups/${api.orgId}/${chatId}`, { method: 'PATCH', token: admin, json });
  const readGroup = async (chatId: string) =>
    (await (await api.call(`/groups/${api.orgId}/${chatId}`, { token: admin })).json()) as GroupView;

  it('renames a group through Meta, applies its notification, and publishes one group.updated however often Meta repeats it', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'Before');
    simulator().setDuplicates(2);

    const response = await patch(chatId, { subject: '  After  ', description: 'Now with a description' });
    const [event] = await exactlyOnce('group.updated', chatId);

    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ chatId, status: 'pending' });
    expect(simulator().requestLog.filter((entry) => entry.method === 'POST' && entry.path === `/${groupId}`)).toEqual([
      expect.objectContaining({
        body: { messaging_product: 'whatsapp', subject: 'After', description: 'Now with a description' },
      }),
    ]);
    expect(event).toEqual({
      type: 'group.updated',
      timestamp: expect.any(String),
      organisation_id: api.orgId,
      chat_id: chatId,
      subject: 'After',
      description: 'Now with a description',
      group_status: 'active',
      errors: [],
    });
    expect(await readGroup(chatId)).toMatchObject({ subject: 'After', description: 'Now with a description' });
    const chat = (await (await api.call(`/chats/${api.orgId}/${chatId}`, { token: admin })).json()) as {
      name: string;
    };
    expect(chat.name).toBe('After');
  });

  it('reports a setting Meta did not apply in errors, and keeps its old value', async () => {
    const { chatId } = await createdGroup(api, admin, 'Partial');
    simulator().scriptNextSettings({ failFields: ['description'], code: 100, message: 'Description not allowed' });

    const response = await patch(chatId, { subject: 'Partial 2', description: 'refused' });
    const [event] = await exactlyOnce('group.updated', chatId);

    expect(response.status).toBe(202);
    expect(event).toMatchObject({
      subject: 'Partial 2',
      description: null,
      errors: [{ field: 'description', code: '100', message: 'Description not allowed' }],
    });
    expect(await readGroup(chatId)).toMatchObject({ subject: 'Partial 2', description: null });
  });

  it('answers 400 for an empty or invalid change, 404, 422 NOT_A_GROUP, 422 NETWORK_REJECTED and 503 NETWORK_UNAVAILABLE', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'Refusals');
    await deps().chats.createChat(
      newChat({
        chatId: 'cht_not_a_group',
        orgId: api.orgId,
        name: 'Direct',
        chatType: 'INDIVIDUAL',
        channelId: api.stack.demo!.channels.eligible,
        now: new Date().toISOString(),
      }),
    );

    const empty = await patch(chatId, {});
    const blank = await patch(chatId, { subject: '   ' });
    const unknown = await patch(chatId, { subject: 'x', name: 'y' });
    const tooLong = await patch(chatId, { description: 'x'.repeat(2049) });
    const missing = await patch('cht_nope', { subject: 'x' });
    const notGroup = await patch('cht_not_a_group', { subject: 'x' });
    const agent = await api.call(`/groups/${api.orgId}/${chatId}`, {
      method: 'PATCH',
      token: await api.token('CRM_AGENT'),
      json: { subject: 'x' },
    });
    simulator().addFault({ method: 'POST', path: `^/${groupId}$`, mode: 'http500' });
    const outage = await patch(chatId, { subject: 'x' });
    simulator().addFault({ method: 'POST', path: `^/${groupId}$`, mode: 'code131208', retryAfterSeconds: 7 });
    const throttled = await patch(chatId, { subject: 'x' });
    simulator().suspend(groupId);
    const refused = await patch(chatId, { subject: 'x' });

    expect([empty.status, blank.status, unknown.status, tooLong.status]).toEqual([400, 400, 400, 400]);
    expect(missing.status).toBe(404);
    expect((await problem(missing)).code).toBe('CHAT_NOT_FOUND');
    expect(notGroup.status).toBe(422);
    expect((await problem(notGroup)).code).toBe('NOT_A_GROUP');
    expect(agent.status).toBe(403);
    expect(outage.status).toBe(503);
    expect((await problem(outage)).code).toBe('NETWORK_UNAVAILABLE');
    expect(outage.headers.get('retry-after')).not.toBeNull();
    expect(throttled.status).toBe(503);
    expect(throttled.headers.get('retry-after')).toBe('7');
    expect(refused.status).toBe(422);
    expect(await problem(refused)).toMatchObject({ code: 'NETWORK_REJECTED', networkCode: 131207 });
  });

  it('follows suspension and its end, with one group.updated each however often Meta repeats them', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'Suspended');
    simulator().setDuplicates(1);

    simulator().suspend(groupId);
    const [suspended] = await exactlyOnce('group.updated', chatId);
    const listed = (await (await api.call(`/groups/${api.orgId}?groupStatus=suspended`, { token: admin })).json()) as {
      groups: GroupView[];
    };
    simulator().clearSuspension(groupId);
    const events = await exactlyOnce('group.updated', chatId, 2);

    expect(suspended).toMatchObject({ group_status: 'suspended', subject: 'Suspended', errors: [] });
    expect(listed.groups.map((group) => group.chatId)).toContain(chatId);
    expect(events[1]).toMatchObject({ group_status: 'active' });
    expect((await readGroup(chatId)).groupStatus).toBe('active');
  });

  it('deletes a group: it stays readable, refuses sends and updates with GROUP_DELETED, and group.deleted comes once', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'Doomed');
    simulator().join(groupId, '4915100000021');
    simulator().addFault({ method: 'DELETE', path: `^/${groupId}$`, mode: 'http500' });
    const outage = await api.call(`/groups/${api.orgId}/${chatId}`, { method: 'DELETE', token: admin });
    simulator().setDuplicates(2);

    const response = await api.call(`/groups/${api.orgId}/${chatId}`, { method: 'DELETE', token: admin });
    const [event] = await exactlyOnce('group.deleted', chatId);
    const again = await api.call(`/groups/${api.orgId}/${chatId}`, { method: 'DELETE', token: admin });
    const send = await api.call('/messaging/send-message', {
      method: 'POST',
      token: admin,
      json: { chatId, text: 'anyone?' },
    });
    const update = await patch(chatId, { subject: 'Revived' });
    const invite = await api.call(`/groups/${api.orgId}/${chatId}/invite-link`, { token: admin });
    const chat = (await (await api.call(`/chats/${api.orgId}/${chatId}`, { token: admin })).json()) as {
      isArchived: boolean;
    };

    expect(outage.status).toBe(503);
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ chatId, status: 'pending' });
    expect(event).toEqual({
      type: 'group.deleted',
      timestamp: expect.any(String),
      organisation_id: api.orgId,
      chat_id: chatId,
    });
    expect(await readGroup(chatId)).toMatchObject({ groupStatus: 'deleted', subject: 'Doomed' });
    expect(chat.isArchived).toBe(true);
    expect(again.status).toBe(202);
    expect(
      simulator().requestLog.filter((entry) => entry.method === 'DELETE' && entry.path === `/${groupId}`),
    ).toHaveLength(2);
    for (const refused of [send, update, invite]) {
      expect(refused.status).toBe(422);
      expect((await problem(refused)).code).toBe('GROUP_DELETED');
    }
  });

  it('publishes message.received and message.status once each, however often Meta repeats them', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'Talk');
    simulator().join(groupId, '4915100000031');
    await simulator().flushWebhooks();
    simulator().setDuplicates(2);

    const wamid = simulator().receiveMessage(groupId, { from: '4915100000031', text: 'Hello there' });
    const [received] = await exactlyOnce('message.received', chatId);
    const sent = (await (
      await api.call('/messaging/send-message', { method: 'POST', token: admin, json: { chatId, text: 'Hi!' } })
    ).json()) as { messageId: string };
    const statuses = await exactlyOnce('message.status', chatId, 2);
    const outbound = simulator().messages.find((message) => message.text === 'Hi!')!;
    simulator().setMessageStatus(outbound.messageId, 'read');
    const all = await exactlyOnce('message.status', chatId, 3);

    expect(received).toEqual({
      type: 'message.received',
      timestamp: expect.any(String),
      organisation_id: api.orgId,
      chat_id: chatId,
      message_id: expect.stringMatching(/^msg_/),
      external_message_id: wamid,
      from: '+4915100000031',
      message_type: 'text',
      text: 'Hello there',
      error: null,
    });
    expect(statuses.map((status) => status.status).sort()).toEqual(['delivered', 'sent']);
    expect(all.map((status) => status.status).sort()).toEqual(['delivered', 'read', 'sent']);
    expect(all[0]).toMatchObject({ chat_id: chatId, message_id: sent.messageId, error: null, participant: null });
  });

  it('publishes message.status failed once when Meta refuses the send itself (131020: no members yet)', async () => {
    const { chatId } = await createdGroup(api, admin, 'Empty');

    const sent = (await (
      await api.call('/messaging/send-message', { method: 'POST', token: admin, json: { chatId, text: 'Anyone?' } })
    ).json()) as { messageId: string };
    const [failed] = await exactlyOnce('message.status', chatId, 1);

    expect(failed).toMatchObject({
      chat_id: chatId,
      message_id: sent.messageId,
      status: 'failed',
      error: { code: '131020', message: expect.any(String) },
    });
  });

  it('publishes group.participants_changed once per join, join request, revocation, leave and removal', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'Members');
    simulator().setDuplicates(2);

    simulator().join(groupId, '4915100000041');
    await exactlyOnce('group.participants_changed', chatId, 1);
    const joinRequestId = simulator().requestToJoin(groupId, '4915100000042');
    await exactlyOnce('group.participants_changed', chatId, 2);
    simulator().revokeJoinRequest(groupId, joinRequestId);
    await exactlyOnce('group.participants_changed', chatId, 3);
    simulator().leave(groupId, '4915100000041');
    await exactlyOnce('group.participants_changed', chatId, 4);
    simulator().join(groupId, '4915100000043');
    await exactlyOnce('group.participants_changed', chatId, 5);
    const removal = await api.call(`/groups/${api.orgId}/${chatId}/participants`, {
      method: 'DELETE',
      token: admin,
      json: { phoneNumbers: ['+4915100000043'] },
    });
    const events = await exactlyOnce('group.participants_changed', chatId, 6);

    expect(removal.status).toBe(202);
    const byChange = events.map((event) => [event.change, event.phone_numbers, event.join_request_id]);
    expect(byChange).toEqual(
      expect.arrayContaining([
        ['joined', ['+4915100000041'], null],
        ['join_requested', ['+4915100000042'], joinRequestId],
        ['join_request_revoked', ['+4915100000042'], joinRequestId],
        ['left', ['+4915100000041'], null],
        ['joined', ['+4915100000043'], null],
        ['removed', ['+4915100000043'], null],
      ]),
    );
  });
});
