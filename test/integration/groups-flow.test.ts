import { describe, expect, it } from 'vitest';
import { deps } from '#shared/config/deps';
import { newChat } from '#shared/domain/chats/chat';
import { createdGroup, requestGroup, untilFinal } from '#test/support/groups';
import { eventually, useLocalStack } from '#test/support/local-stack';
import { networkSettled } from '#test/support/meta';

describe('group creation end to end through the simulator', () => {
  const api = useLocalStack({ GROUP_RECONCILE_SETTLE_SECONDS: '1', NETWORK_RETRY_BASE_SECONDS: '1' });
  const simulator = () => api.stack.simulator!;
  const eventsFor = (requestId: string) =>
    api.stack.bus.published
      .filter((event) => event.detail.request_id === requestId)
      .map((event) => event['detail-type']);

  it('reaches created with chat id and invite link, then publishes one group.created (D-6)', async () => {
    const token = await api.token('CRM_BOT');

    const response = await requestGroup(api, token, { subject: 'Launch crew', description: 'Launch day' });
    const body = (await response.json()) as { requestId: string; status: string; statusUrl: string };
    const final = await untilFinal(api, token, body.requestId);
    await simulator().flushWebhooks();
    await networkSettled(api);

    expect(response.status).toBe(202);
    expect(response.headers.get('location')).toBe(body.statusUrl);
    expect(body).toMatchObject({
      status: 'pending',
      statusUrl: `/api/wp-crm/groups/${api.orgId}/creation-status/${body.requestId}`,
    });
    expect(body.requestId).toMatch(/^grq_/);
    expect(final).toMatchObject({
      status: 'created',
      chatId: expect.stringMatching(/^cht_/),
      inviteLink: expect.stringMatching(/^https:\/\/chat\.whatsapp\.com\//),
    });
    const poll = await api.call(body.statusUrl.replace('/api/wp-crm', ''), { token });
    expect(((await poll.json()) as { inviteLink?: string }).inviteLink).toBe(final.inviteLink);
    expect(poll.headers.get('cache-control')).toBe('no-store');
    const [group] = simulator()
      .groups()
      .filter((candidate) => candidate.subject === 'Launch crew');
    expect(group).toMatchObject({ joinApprovalMode: 'approval_required', description: 'Launch day' });
    expect(eventsFor(body.requestId)).toEqual(['group.created']);
    const event = api.stack.bus.published.find((candidate) => candidate.detail.request_id === body.requestId)!;
    expect(event.detail).toMatchObject({
      chat_id: final.chatId,
      organisation_id: api.orgId,
      invite_link: final.inviteLink,
      subject: 'Launch crew',
    });
  });

  it('asks Meta for auto approval only when requireJoinApproval is false', async () => {
    const token = await api.token('CRM_ADMIN');

    await createdGroup(api, token, 'Open door');

    const response = await requestGroup(api, token, { subject: 'Open house', requireJoinApproval: false });
    await untilFinal(api, token, ((await response.json()) as { requestId: string }).requestId);
    const modes = Object.fromEntries(
      simulator()
        .groups()
        .map((group) => [group.subject, group.joinApprovalMode]),
    );
    expect(modes).toMatchObject({ 'Open door': 'approval_required', 'Open house': 'auto_approve' });
  });

  it("fails with Meta's code when the network refuses, and publishes group.creation_failed", async () => {
    const token = await api.token('CRM_ADMIN');
    simulator().scriptNextGroup({ outcome: 'fail', code: 131215, message: 'Number not eligible for Groups APIs' });

    const { requestId } = (await (await requestGroup(api, token, { subject: 'Refused' })).json()) as {
      requestId: string;
    };
    const final = await untilFinal(api, token, requestId);

    expect(final).toMatchObject({ status: 'failed', error: { code: 'CHANNEL_NOT_ELIGIBLE' } });
    await eventually(() => expect(eventsFor(requestId)).toEqual(['group.creation_failed']));
  });

  it('makes one group and one event despite duplicate queue deliveries and replayed webhooks (F-1, I-5)', async () => {
    const token = await api.token('CRM_ADMIN');
    simulator().setDuplicates(2);
    const { requestId } = (await (await requestGroup(api, token, { subject: 'Echo' })).json()) as { requestId: string };
    const queue = api.stack.queues.get('group-requests')!;
    queue.send(JSON.stringify({ orgId: api.orgId, requestId }));
    queue.send(JSON.stringify({ orgId: api.orgId, requestId }));

    await untilFinal(api, token, requestId);
    await simulator().flushWebhooks();
    await networkSettled(api);
    queue.send(JSON.stringify({ orgId: api.orgId, requestId }));
    await eventually(() => expect(queue.size).toBe(0));
    simulator().setDuplicates(0);

    expect(
      simulator()
        .groups()
        .filter((group) => group.subject === 'Echo'),
    ).toHaveLength(1);
    expect(eventsFor(requestId)).toEqual(['group.created']);
  });

  it('gets past a Graph 500 and still makes exactly one group', async () => {
    const token = await api.token('CRM_ADMIN');
    simulator().addFault({ method: 'POST', path: '/groups$', mode: 'http500', times: 1 });

    const { requestId } = (await (await requestGroup(api, token, { subject: 'Flaky' })).json()) as {
      requestId: string;
    };
    const final = await untilFinal(api, token, requestId);

    expect(final.status).toBe('created');
    expect(
      simulator()
        .groups()
        .filter((group) => group.subject === 'Flaky'),
    ).toHaveLength(1);
  });

  it('reconciles a reply lost after the group was made, without a second group (H-5)', async () => {
    const token = await api.token('CRM_ADMIN');
    simulator().scriptNextGroup({ outcome: 'silent', groupCreated: true });
    simulator().addFault({ method: 'POST', path: '/groups$', mode: 'reset-after-commit', times: 1 });

    const { requestId } = (await (await requestGroup(api, token, { subject: 'Lost reply' })).json()) as {
      requestId: string;
    };
    const final = await untilFinal(api, token, requestId);

    expect(final.status).toBe('created');
    expect(
      simulator()
        .groups()
        .filter((group) => group.subject === 'Lost reply'),
    ).toHaveLength(1);
    expect(
      simulator().requestLog.filter(
        (entry) =>
          entry.method === 'POST' &&
          entry.path.endsWith('/groups') &&
          (entry.body as { subject?: string }).subject === 'Lost reply',
      ),
    ).toHaveLength(1);
  });

  it('retries a 429 from Meta and makes exactly one group (H-1)', async () => {
    const token = await api.token('CRM_ADMIN');
    simulator().addFault({ method: 'POST', path: '/groups$', mode: 'code131208', times: 2 });

    const { requestId } = (await (await requestGroup(api, token, { subject: 'Throttled' })).json()) as {
      requestId: string;
    };
    const final = await untilFinal(api, token, requestId, 20_000);

    expect(final.status).toBe('created');
    expect(
      simulator()
        .groups()
        .filter((group) => group.subject === 'Throttled'),
    ).toHaveLength(1);
  });
});

describe('confirmation timeout', () => {
  const api = useLocalStack({
    GROUP_CONFIRMATION_TIMEOUT_SECONDS: '1',
    GROUP_RECONCILE_SETTLE_SECONDS: '1',
    WPCRM_SWEEP_INTERVAL_MS: '100',
  });

  it('completes a request Meta never confirms when Meta lists its group (GET /{phoneNumberId}/groups, CONTRACT §18)', async () => {
    const token = await api.token('CRM_ADMIN');
    api.stack.simulator!.scriptNextGroup({ outcome: 'silent', groupCreated: true });

    const { requestId } = (await (await requestGroup(api, token, { subject: 'Quiet but there' })).json()) as {
      requestId: string;
    };
    const final = await untilFinal(api, token, requestId, 30_000);

    expect(final).toMatchObject({ status: 'created', subject: 'Quiet but there' });
    expect(final.chatId).toBeDefined();
    expect(final.inviteLink).toMatch(/^https:\/\/chat\.whatsapp\.com\//);
  });

  it('fails a request Meta never confirms with CONFIRMATION_TIMEOUT', async () => {
    const token = await api.token('CRM_ADMIN');
    api.stack.simulator!.scriptNextGroup({ outcome: 'silent' });

    const { requestId } = (await (await requestGroup(api, token, { subject: 'Silence' })).json()) as {
      requestId: string;
    };
    const final = await untilFinal(api, token, requestId);

    expect(final).toMatchObject({ status: 'failed', error: { code: 'CONFIRMATION_TIMEOUT' } });
  });
});

describe('the group as a chat', () => {
  const api = useLocalStack({ NETWORK_RETRY_BASE_SECONDS: '1' });
  const simulator = () => api.stack.simulator!;

  it('records Meta refusing a message to a group with no members (131020), then sends once someone joined', async () => {
    const token = await api.token('CRM_AGENT');
    const { chatId, groupId } = await createdGroup(api, await api.token('CRM_ADMIN'), 'Chatty');
    const send = (text: string) =>
      api.call('/messaging/send-message', { method: 'POST', token, json: { chatId, text } });

    const early = await send('anyone here?');
    const earlyId = ((await early.json()) as { messageId: string }).messageId;
    await eventually(async () => {
      const page = (await (await api.call(`/chats/${api.orgId}/${chatId}/messages`, { token })).json()) as {
        messages: { status: string }[];
      };
      expect(page.messages[0]?.status).toBe('failed');
    });
    simulator().join(groupId, '4915112345678');
    await simulator().flushWebhooks();
    await networkSettled(api);
    const later = await send('welcome!');
    const laterBody = (await later.json()) as { messageId: string; status: string };

    expect(early.status).toBe(202);
    expect(laterBody.status).toBe('queued');
    const messages = await eventually(async () => {
      const page = (await (await api.call(`/chats/${api.orgId}/${chatId}/messages`, { token })).json()) as {
        messages: { messageId: string; status: string; error?: { code: string }; direction: string }[];
      };
      const byId = Object.fromEntries(page.messages.map((message) => [message.messageId, message]));
      expect(byId[earlyId]).toMatchObject({ status: 'failed', error: { code: '131020' } });
      expect(['sent', 'delivered', 'read']).toContain(byId[laterBody.messageId]?.status);
      return page.messages;
    });
    expect(messages.map((message) => message.direction)).toEqual(['OUTBOUND', 'OUTBOUND']);
    const sent = simulator().messages.find((message) => message.text === 'welcome!');
    expect(sent).toMatchObject({ recipientType: 'group', to: groupId });
    await eventually(async () => {
      const participants = (await (
        await api.call(`/groups/${api.orgId}/${chatId}/participants`, { token: await api.token('CRM_BOT') })
      ).json()) as {
        participants: { phoneNumber: string }[];
      };
      expect(participants.participants.map((participant) => participant.phoneNumber)).toEqual(['+4915112345678']);
    });
  });

  it('stores inbound group messages once, oldest first, and marks the chat as unanswered', async () => {
    const token = await api.token('CRM_AGENT');
    const { chatId, groupId } = await createdGroup(api, await api.token('CRM_ADMIN'), 'Inbound');
    simulator().join(groupId, '4915100000042');
    simulator().setDuplicates(1);
    // Meta got 200 once the webhook kept each notification; the worker behind it applies them (CONTRACT §21).
    simulator().receiveMessage(groupId, { from: '4915100000042', text: 'first' });
    await simulator().flushWebhooks();
    await networkSettled(api);
    simulator().receiveMessage(groupId, { from: '4915100000042', text: 'second' });
    await simulator().flushWebhooks();
    await networkSettled(api);
    simulator().setDuplicates(0);

    const page = (await (await api.call(`/chats/${api.orgId}/${chatId}/messages?limit=1`, { token })).json()) as {
      messages: { text: string; direction: string; from: string }[];
      nextCursor: string;
    };
    const rest = (await (
      await api.call(`/chats/${api.orgId}/${chatId}/messages?limit=10&cursor=${page.nextCursor}`, { token })
    ).json()) as {
      messages: { text: string }[];
      nextCursor: string | null;
    };
    const chat = (await (await api.call(`/chats/${api.orgId}/${chatId}`, { token })).json()) as {
      lastMessageFrom: string;
    };

    expect(page.messages).toMatchObject([{ text: 'first', direction: 'INBOUND', from: '+4915100000042' }]);
    expect(rest.messages.map((message) => message.text)).toEqual(['second']);
    expect(rest.nextCursor).toBeNull();
    expect(chat.lastMessageFrom).toBe('GUEST');
  });

  it("shows a group's invite link and members to the roles that manage members, not to agents, and never caches it", async () => {
    const { chatId, groupId } = await createdGroup(api, await api.token('CRM_ADMIN'), 'Private');
    simulator().join(groupId, '4915100000077');
    await simulator().flushWebhooks();
    await networkSettled(api);

    const asAgent = await api.call(`/chats/${api.orgId}/${chatId}`, { token: await api.token('CRM_AGENT') });
    const asBot = await api.call(`/chats/${api.orgId}/${chatId}`, { token: await api.token('CRM_BOT') });
    const agentView = (await asAgent.json()) as Record<string, unknown>;
    const botView = (await asBot.json()) as Record<string, unknown>;

    expect(agentView).toMatchObject({ chatId, chatType: 'GROUP' });
    expect(agentView).not.toHaveProperty('inviteLink');
    expect(agentView).not.toHaveProperty('participants');
    expect(botView.inviteLink).toMatch(/^https:\/\/chat\.whatsapp\.com\//);
    expect(botView.participants).toEqual([expect.objectContaining({ phoneNumber: '+4915100000077' })]);
    expect(asAgent.headers.get('cache-control')).toBe('no-store');
    expect(asBot.headers.get('cache-control')).toBe('no-store');
  });

  it('replaces assignments list by list and checks the primary assignee', async () => {
    const token = await api.token('CRM_AGENT');
    const { chatId } = await createdGroup(api, await api.token('CRM_ADMIN'), 'Assigned');
    const assign = (json: unknown) =>
      api.call(`/chat-assignments/${api.orgId}/${chatId}`, { method: 'POST', token, json });

    const first = await assign({ userIds: ['u1', 'u2'], teamIds: ['t1'], primaryUserId: 'u1' });
    const teamsOnly = await assign({ teamIds: ['t2'] });
    const invalid = await assign({ primaryUserId: 'u9' });
    const cleared = await assign({ primaryUserId: null, userIds: [] });

    expect(await first.json()).toEqual({
      chatId,
      assignedUserIds: ['u1', 'u2'],
      assignedTeamIds: ['t1'],
      primaryAssigneeUserId: 'u1',
    });
    expect(await teamsOnly.json()).toEqual({
      chatId,
      assignedUserIds: ['u1', 'u2'],
      assignedTeamIds: ['t2'],
      primaryAssigneeUserId: 'u1',
    });
    expect(invalid.status).toBe(422);
    expect(((await invalid.json()) as { code: string }).code).toBe('VALIDATION_FAILED');
    expect(await cleared.json()).toEqual({
      chatId,
      assignedUserIds: [],
      assignedTeamIds: ['t2'],
      primaryAssigneeUserId: null,
    });
  });

  it('answers 404 CHAT_NOT_FOUND for unknown chats and 422 CHANNEL_NOT_SUPPORTED for a chat its channel cannot send to', async () => {
    const token = await api.token('CRM_AGENT');
    await deps().chats.createChat(
      newChat({
        chatId: 'cht_unofficial',
        orgId: api.orgId,
        name: 'Unofficial',
        chatType: 'INDIVIDUAL',
        channelId: api.stack.demo!.channels.unofficial,
        now: new Date().toISOString(),
      }),
    );

    const missing = await api.call('/messaging/send-message', {
      method: 'POST',
      token,
      json: { chatId: 'cht_nope', text: 'hi' },
    });
    const unsupported = await api.call('/messaging/send-message', {
      method: 'POST',
      token,
      json: { chatId: 'cht_unofficial', text: 'hi' },
    });
    const notGroup = await api.call(`/groups/${api.orgId}/cht_unofficial/participants`, {
      token: await api.token('CRM_ADMIN'),
    });
    const getMissing = await api.call(`/chats/${api.orgId}/cht_nope`, { token });

    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { code: string }).code).toBe('CHAT_NOT_FOUND');
    expect(unsupported.status).toBe(422);
    expect(((await unsupported.json()) as { code: string }).code).toBe('CHANNEL_NOT_SUPPORTED');
    expect(notGroup.status).toBe(422);
    expect(((await notGroup.json()) as { code: string }).code).toBe('NOT_A_GROUP');
    expect(getMissing.status).toBe(404);
  });
});

describe('group members', () => {
  const api = useLocalStack();
  const simulator = () => api.stack.simulator!;

  it('invites numbers with the invite-link template', async () => {
    const token = await api.token('CRM_ADMIN');
    const { chatId, groupId } = await createdGroup(api, token, 'Invites');

    const response = await api.call(`/groups/${api.orgId}/${chatId}/participants`, {
      method: 'POST',
      token,
      json: { phoneNumbers: ['+4915100000001', '+4915100000002'] },
    });

    expect(response.status).toBe(202);
    const body = (await response.json()) as {
      invitations: { phoneNumber: string; status: string; messageId: string }[];
    };
    expect(body.invitations.map((invitation) => [invitation.phoneNumber, invitation.status])).toEqual([
      ['+4915100000001', 'sent'],
      ['+4915100000002', 'sent'],
    ]);
    const templates = simulator().messages.filter((message) => message.type === 'template');
    expect(templates.map((message) => message.to).sort()).toEqual(['4915100000001', '4915100000002']);
    expect(JSON.stringify(templates[0]!.template)).toContain(groupId);
  });

  it("answers an invitation the network dropped with the contract's code and message only, never the transport's", async () => {
    const token = await api.token('CRM_ADMIN');
    const { chatId } = await createdGroup(api, token, 'Dropped');
    simulator().addFault({ method: 'POST', path: '/messages$', to: '4915100000004', mode: 'reset-after-commit' });

    const response = await api.call(`/groups/${api.orgId}/${chatId}/participants`, {
      method: 'POST',
      token,
      json: { phoneNumbers: ['+4915100000003', '+4915100000004'] },
    });

    const body = (await response.json()) as {
      invitations: { phoneNumber: string; status: string; error?: { code: string; message: string } }[];
    };
    expect(response.status).toBe(202);
    expect(body.invitations[0]).toMatchObject({ phoneNumber: '+4915100000003', status: 'sent' });
    expect(body.invitations[1]).toEqual({
      phoneNumber: '+4915100000004',
      status: 'failed',
      error: { code: 'NETWORK_UNAVAILABLE', message: expect.any(String) },
    });
    expect(JSON.stringify(body)).not.toMatch(/ECONN|socket|fetch failed|127\.0\.0\.1|\/v23\.0|graph/i);
  });

  it('lists, approves and rejects join requests, and follows the participant changes', async () => {
    const token = await api.token('CRM_BOT');
    const { chatId, groupId } = await createdGroup(api, token, 'Doorman');
    const approveId = simulator().requestToJoin(groupId, '4915100000011');
    const rejectId = simulator().requestToJoin(groupId, '4915100000012');
    await simulator().flushWebhooks();
    await networkSettled(api);

    const listed = (await (await api.call(`/groups/${api.orgId}/${chatId}/join-requests`, { token })).json()) as {
      joinRequests: { joinRequestId: string; phoneNumber: string }[];
    };
    const approved = await api.call(`/groups/${api.orgId}/${chatId}/join-requests/approve`, {
      method: 'POST',
      token,
      json: { joinRequestIds: [approveId, 'unknown-request'] },
    });
    const rejected = await api.call(`/groups/${api.orgId}/${chatId}/join-requests/reject`, {
      method: 'POST',
      token,
      json: { joinRequestIds: [rejectId] },
    });
    await simulator().flushWebhooks();
    await networkSettled(api);

    expect(listed.joinRequests.map((request) => request.phoneNumber).sort()).toEqual([
      '+4915100000011',
      '+4915100000012',
    ]);
    expect(await approved.json()).toMatchObject({
      succeeded: [approveId],
      failed: [{ joinRequestId: 'unknown-request' }],
    });
    expect(await rejected.json()).toEqual({ succeeded: [rejectId], failed: [] });
    await eventually(async () => {
      const after = (await (await api.call(`/groups/${api.orgId}/${chatId}/join-requests`, { token })).json()) as {
        joinRequests: unknown[];
      };
      const participants = (await (
        await api.call(`/groups/${api.orgId}/${chatId}/participants`, { token })
      ).json()) as {
        participants: { phoneNumber: string }[];
      };
      expect(after.joinRequests).toEqual([]);
      expect(participants.participants.map((participant) => participant.phoneNumber)).toEqual(['+4915100000011']);
    });
  });

  it('removes a participant and keeps the list current', async () => {
    const token = await api.token('CRM_ADMIN');
    const { chatId, groupId } = await createdGroup(api, token, 'Leavers');
    simulator().join(groupId, '4915100000021');
    simulator().join(groupId, '4915100000022');
    await simulator().flushWebhooks();
    await networkSettled(api);

    const response = await api.call(`/groups/${api.orgId}/${chatId}/participants`, {
      method: 'DELETE',
      token,
      json: { phoneNumbers: ['+4915100000021'] },
    });
    await simulator().flushWebhooks();
    await networkSettled(api);

    expect(response.status).toBe(202);
    await eventually(async () => {
      const participants = (await (
        await api.call(`/groups/${api.orgId}/${chatId}/participants`, { token })
      ).json()) as {
        participants: { phoneNumber: string }[];
      };
      expect(participants.participants.map((participant) => participant.phoneNumber)).toEqual(['+4915100000022']);
    });
  });

  it('reads and resets the invite link; network refusals are 422 and outages 503', async () => {
    const token = await api.token('CRM_ADMIN');
    const { chatId, inviteLink } = await createdGroup(api, token, 'Links');

    const current = (await (await api.call(`/groups/${api.orgId}/${chatId}/invite-link`, { token })).json()) as {
      inviteLink: string;
    };
    const reset = (await (
      await api.call(`/groups/${api.orgId}/${chatId}/invite-link/reset`, { method: 'POST', token })
    ).json()) as {
      inviteLink: string;
    };
    const chat = (await (await api.call(`/chats/${api.orgId}/${chatId}`, { token })).json()) as { inviteLink: string };
    simulator().addFault({ method: 'GET', path: '/invite_link$', mode: 'http500', times: 1 });
    const outage = await api.call(`/groups/${api.orgId}/${chatId}/invite-link`, { token });
    const refused = await api.call(`/groups/${api.orgId}/${chatId}/join-requests/approve`, {
      method: 'POST',
      token,
      json: { joinRequestIds: Array.from({ length: 100 }, (_, index) => `r${index}`) },
    });

    expect(current.inviteLink).toBe(inviteLink);
    expect(reset.inviteLink).not.toBe(inviteLink);
    expect(chat.inviteLink).toBe(reset.inviteLink);
    expect(outage.status).toBe(503);
    expect(outage.headers.get('retry-after')).toBeTruthy();
    expect(((await outage.json()) as { code: string }).code).toBe('NETWORK_UNAVAILABLE');
    expect([200, 422]).toContain(refused.status);
  });
});
