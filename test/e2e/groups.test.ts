import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '#test/support/eventually';
import { useReceiver } from '#test/support/receiver';
import { call, localDeployment } from './target.ts';

interface Status {
  status: string;
  chatId?: string;
  inviteLink?: string;
}

// One group's life through the deployment, in order: each step uses what the one before made.
describe('a group chat from request to conversation', () => {
  const deployment = localDeployment();
  const { orgId } = deployment;
  const receiver = useReceiver();
  let admin: string;
  let secret: string;
  let chatId: string;
  let groupId: string;

  beforeAll(async () => {
    admin = await deployment.token('CRM_ADMIN');
  });

  /** The first signed delivery of `type` that `matches`, verified with the subscription's secret. */
  const eventOf = (type: string, matches: (event: Record<string, unknown>) => boolean) =>
    eventually(
      () => {
        const events = receiver
          .requestsTo('/groups')
          .map(
            (request) =>
              new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as Record<
                string,
                unknown
              >,
          )
          .filter((event) => event.type === type && matches(event));
        expect(events).toHaveLength(1);
        return events[0]!;
      },
      { timeoutMs: 30_000 },
    );

  it('subscribes a receiver to every event', async () => {
    const created = await call(`/webhooks/${orgId}`, {
      method: 'POST',
      token: admin,
      json: { url: `${receiver.url}/groups`, description: 'e2e groups' },
    });

    expect(created.status).toBe(201);
    secret = ((await created.json()) as { secret: string }).secret;
    expect(secret).toMatch(/^whsec_/);
  });

  it('creates a group that Meta confirms: polling shows it created, then a signed group.created arrives', async () => {
    const bot = await deployment.token('CRM_BOT');

    const accepted = await call(`/groups/${orgId}`, {
      method: 'POST',
      token: bot,
      headers: { 'idempotency-key': `e2e-${Date.now()}` },
      json: { channelId: deployment.demo.channels.eligible, subject: 'E2E crew', description: 'made by the e2e suite' },
    });

    expect(accepted.status).toBe(202);
    const { requestId, statusUrl } = (await accepted.json()) as { requestId: string; statusUrl: string };
    const final = await eventually(
      async () => {
        const status = (await (await call(statusUrl.replace('/api/wp-crm', ''), { token: bot })).json()) as Status;
        expect(status.status).toBe('created');
        return status;
      },
      { timeoutMs: 30_000 },
    );
    chatId = final.chatId!;
    expect(final.inviteLink).toMatch(/^https:\/\/chat\.whatsapp\.com\//);
    const delivery = await eventually(
      () => {
        const found = receiver.requestsTo('/groups').find((request) => request.body.includes(requestId));
        expect(found).toBeDefined();
        return found!;
      },
      { timeoutMs: 30_000 },
    );
    const event = new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>) as {
      type: string;
      chat_id: string;
    };
    expect(event).toMatchObject({ type: 'group.created', chat_id: chatId });
  });

  it('reads the group as a chat', async () => {
    const response = await call(`/chats/${orgId}/${chatId}`, { token: admin });

    expect(response.status).toBe(200);
    const chat = (await response.json()) as { chatType: string; externalChatId: string; requireJoinApproval: boolean };
    expect(chat).toMatchObject({ chatType: 'GROUP', requireJoinApproval: true });
    groupId = chat.externalChatId;
  });

  it('follows members who join through the invite link', async () => {
    await deployment.simulator(`/groups/${groupId}/join`, { waId: '4915100000071' });
    await deployment.simulator('/flush', {});

    await eventually(async () => {
      const response = await call(`/groups/${orgId}/${chatId}/participants`, { token: admin });
      expect(response.status).toBe(200);
      const { participants } = (await response.json()) as { participants: { phoneNumber: string }[] };
      expect(participants.map((participant) => participant.phoneNumber)).toEqual(['+4915100000071']);
    });
  });

  it('sends a message that the network delivers, and stores a member reply', async () => {
    const agent = await deployment.token('CRM_AGENT');

    const sent = await call('/messaging/send-message', {
      method: 'POST',
      token: agent,
      json: { chatId, text: 'Welcome aboard' },
    });
    await deployment.simulator(`/groups/${groupId}/messages`, { from: '4915100000071', text: 'Thanks!' });

    expect(sent.status).toBe(202);
    await eventually(
      async () => {
        const { messages } = (await (await call(`/chats/${orgId}/${chatId}/messages`, { token: agent })).json()) as {
          messages: { direction: string; text: string; status: string }[];
        };
        expect(messages.map((message) => [message.direction, message.text])).toEqual([
          ['OUTBOUND', 'Welcome aboard'],
          ['INBOUND', 'Thanks!'],
        ]);
        expect(['delivered', 'read']).toContain(messages[0]!.status);
      },
      { timeoutMs: 20_000 },
    );
    const received = await eventOf('message.received', (event) => event.text === 'Thanks!');
    expect(received).toMatchObject({ chat_id: chatId, from: '+4915100000071', message_type: 'text' });
  });

  it('lists the receipts of a group message (none without per-member statuses), 404 for an unknown message', async () => {
    const { messages } = (await (await call(`/chats/${orgId}/${chatId}/messages`, { token: admin })).json()) as {
      messages: { messageId: string; direction: string }[];
    };
    const outbound = messages.find((message) => message.direction === 'OUTBOUND')!;

    const receipts = await call(`/chats/${orgId}/${chatId}/messages/${outbound.messageId}/receipts?limit=10`, {
      token: admin,
    });
    const unknown = await call(`/chats/${orgId}/${chatId}/messages/msg_unknown/receipts`, { token: admin });

    expect(receipts.status).toBe(200);
    expect(await receipts.json()).toEqual({ receipts: [], nextCursor: null });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { code: string }).code).toBe('MESSAGE_NOT_FOUND');
  });

  it('assigns users and teams', async () => {
    const response = await call(`/chat-assignments/${orgId}/${chatId}`, {
      method: 'POST',
      token: admin,
      json: { userIds: ['u1', 'u2'], teamIds: ['t1'], primaryUserId: 'u2' },
    });

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      chatId,
      assignedUserIds: ['u1', 'u2'],
      assignedTeamIds: ['t1'],
      primaryAssigneeUserId: 'u2',
    });
  });

  it('invites numbers with the invite link, and removes a member', async () => {
    const invited = await call(`/groups/${orgId}/${chatId}/participants`, {
      method: 'POST',
      token: admin,
      json: { phoneNumbers: ['+4915100000072'] },
    });
    const removed = await call(`/groups/${orgId}/${chatId}/participants`, {
      method: 'DELETE',
      token: admin,
      json: { phoneNumbers: ['+4915100000071'] },
    });

    expect(invited.status).toBe(202);
    expect(((await invited.json()) as { invitations: { status: string }[] }).invitations).toMatchObject([
      { status: 'sent' },
    ]);
    expect(removed.status).toBe(202);
    await deployment.simulator('/flush', {});
    await eventually(async () => {
      const { participants } = (await (
        await call(`/groups/${orgId}/${chatId}/participants`, { token: admin })
      ).json()) as { participants: unknown[] };
      expect(participants).toEqual([]);
    });
  });

  it('reads and resets the invite link', async () => {
    const current = await call(`/groups/${orgId}/${chatId}/invite-link`, { token: admin });
    const reset = await call(`/groups/${orgId}/${chatId}/invite-link/reset`, { method: 'POST', token: admin });

    expect(current.status).toBe(200);
    expect(reset.status).toBe(200);
    const before = ((await current.json()) as { inviteLink: string }).inviteLink;
    const after = ((await reset.json()) as { inviteLink: string }).inviteLink;
    expect(after).toMatch(/^https:\/\/chat\.whatsapp\.com\//);
    expect(after).not.toBe(before);
  });

  it('lists join requests, approves one and rejects another', async () => {
    const { joinRequestId: approveId } = await deployment.simulator<{ joinRequestId: string }>(
      `/groups/${groupId}/join-requests`,
      { waId: '4915100000073' },
    );
    const { joinRequestId: rejectId } = await deployment.simulator<{ joinRequestId: string }>(
      `/groups/${groupId}/join-requests`,
      { waId: '4915100000074' },
    );
    await deployment.simulator('/flush', {});

    const listed = await eventually(async () => {
      const body = (await (await call(`/groups/${orgId}/${chatId}/join-requests`, { token: admin })).json()) as {
        joinRequests: { joinRequestId: string }[];
      };
      expect(body.joinRequests).toHaveLength(2);
      return body;
    });
    const approved = await call(`/groups/${orgId}/${chatId}/join-requests/approve`, {
      method: 'POST',
      token: admin,
      json: { joinRequestIds: [approveId] },
    });
    const rejected = await call(`/groups/${orgId}/${chatId}/join-requests/reject`, {
      method: 'POST',
      token: admin,
      json: { joinRequestIds: [rejectId] },
    });

    expect(listed.joinRequests.map((request) => request.joinRequestId).sort()).toEqual([approveId, rejectId].sort());
    expect(await approved.json()).toEqual({ succeeded: [approveId], failed: [] });
    expect(await rejected.json()).toEqual({ succeeded: [rejectId], failed: [] });
  });

  it('lists the group and reads it', async () => {
    const listed = await call(`/groups/${orgId}?channelId=${deployment.demo.channels.eligible}&limit=100`, {
      token: admin,
    });
    const read = await call(`/groups/${orgId}/${chatId}`, { token: admin });

    expect(listed.status).toBe(200);
    const { groups } = (await listed.json()) as { groups: { chatId: string }[] };
    expect(groups.map((group) => group.chatId)).toContain(chatId);
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({
      chatId,
      externalChatId: groupId,
      subject: 'E2E crew',
      groupStatus: 'active',
    });
  });

  it('renames the group: Meta applies it, and a signed group.updated arrives', async () => {
    const response = await call(`/groups/${orgId}/${chatId}`, {
      method: 'PATCH',
      token: admin,
      json: { subject: 'E2E crew, renamed', description: 'still made by the e2e suite' },
    });

    expect(response.status).toBe(202);
    const event = await eventOf('group.updated', (candidate) => candidate.chat_id === chatId);
    expect(event).toMatchObject({ subject: 'E2E crew, renamed', group_status: 'active', errors: [] });
    expect(await (await call(`/groups/${orgId}/${chatId}`, { token: admin })).json()).toMatchObject({
      subject: 'E2E crew, renamed',
      description: 'still made by the e2e suite',
    });
  });

  it('deletes the group: group.deleted arrives, it stays readable and refuses messages', async () => {
    const response = await call(`/groups/${orgId}/${chatId}`, { method: 'DELETE', token: admin });

    expect(response.status).toBe(202);
    await eventOf('group.deleted', (event) => event.chat_id === chatId);
    expect(await (await call(`/groups/${orgId}/${chatId}`, { token: admin })).json()).toMatchObject({
      groupStatus: 'deleted',
    });
    const send = await call('/messaging/send-message', { method: 'POST', token: admin, json: { chatId, text: 'hi' } });
    expect(send.status).toBe(422);
    expect(((await send.json()) as { code: string }).code).toBe('GROUP_DELETED');
  });

  it("answers Meta's verification handshake", async () => {
    const verifyToken = process.env.E2E_VERIFY_TOKEN ?? 'local-whatsapp-verify-token';

    const response = await call(
      `/network/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=${verifyToken}&hub.challenge=4711`,
    );

    expect(response.status).toBe(200);
    expect(await response.text()).toBe('4711');
  });
});
