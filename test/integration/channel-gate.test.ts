import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '#bin/cli/main';
import { deps } from '#shared/config/deps';
import { OUTBOUND_MESSAGES_QUEUE } from '#shared/domain/chats/chats';
import { GROUP_REQUESTS_QUEUE } from '#shared/domain/groups/create-group';
import type { GroupRequest } from '#shared/domain/groups/group-request';
import { createChannel } from '#shared/domain/orgs/administer';
import { requestGroup, untilFinal } from '#test/support/groups';
import { eventually, useLocalStack } from '#test/support/local-stack';
import { postNotification } from '#test/support/meta';

const PHONE_NUMBER_ID = '100000000000055';
/** Groups Meta confirmed for requests of the channel after it was disabled (ids of our own making). */
const CONFIRMED_GROUP = '120363000000550001';
const UNLINKED_GROUP = '120363000000550002';
const WAITING_GROUP = '120363000000550003';

type Json = Record<string, unknown>;

/**
 * CONTRACT §17, §21: while a channel is disabled, nothing reaches Meta on its behalf. Every route and worker that can
 * call Meta is driven with the disabled channel, and the simulator counts the calls made for it: zero.
 */
describe('the network gate with a disabled channel', () => {
  const api = useLocalStack();
  const simulator = () => api.stack.simulator!;
  const wpcrm = async (...args: string[]) => {
    let stdout = '';
    const io = { out: (line: string) => (stdout += line), err: () => undefined };
    const status = await main(args, io, { WPCRM_DATA_DIR: api.stack.dataDir });
    if (status !== 0) throw new Error(`wpcrm ${args.join(' ')}: exit ${status}`);
    return JSON.parse(stdout) as Json;
  };
  let token: string;
  let channelId: string;
  let chatId: string;
  let groupId: string;
  let joinRequestId: string;
  /** Where the simulator's request log stood when the channel was disabled. */
  let disabledFrom: number;

  /** Calls the simulator received for the channel (its number or one of its groups) since it was disabled. */
  const callsForChannel = () =>
    simulator()
      .requestLog.slice(disabledFrom)
      .filter(({ path }) =>
        [PHONE_NUMBER_ID, groupId, CONFIRMED_GROUP, UNLINKED_GROUP, WAITING_GROUP].some(
          (id) => path === `/${id}` || path.startsWith(`/${id}/`),
        ),
      );

  /** A group request of the channel, written as a worker would find it. */
  async function storedRequest(changes: Partial<GroupRequest> = {}) {
    const now = new Date().toISOString();
    const request: GroupRequest = {
      requestId: deps().ids.next('grq'),
      orgId: api.orgId,
      channelId,
      subject: 'Queued before disable',
      requireJoinApproval: true,
      status: 'pending',
      createdAt: now,
      updatedAt: now,
      ...changes,
    };
    expect(await deps().groups.create(request)).toBe(true);
    if (request.networkRequestId) {
      await deps().groups.linkNetworkRequest({
        networkRequestId: request.networkRequestId,
        orgId: api.orgId,
        requestId: request.requestId,
        phoneNumberId: PHONE_NUMBER_ID,
      });
    }
    return request;
  }

  const groupCreated = (networkRequestId: string, createdGroupId: string, inviteLink?: string) => ({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '100000000000900',
        changes: [
          {
            field: 'group_lifecycle_update',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550000055', phone_number_id: PHONE_NUMBER_ID },
              groups: [
                {
                  timestamp: String(Math.floor(Date.now() / 1000)),
                  type: 'group_create',
                  group_id: createdGroupId,
                  request_id: networkRequestId,
                  subject: 'Confirmed after disable',
                  ...(inviteLink ? { invite_link: inviteLink } : {}),
                },
              ],
            },
          },
        ],
      },
    ],
  });

  const published = (type: string, key: string, value: string) =>
    api.stack.bus.published.filter((event) => event['detail-type'] === type && event.detail[key] === value);

  beforeAll(async () => {
    token = await api.token('CRM_ADMIN');
    ({ channelId } = await createChannel(deps(), {
      orgId: api.orgId,
      name: 'Gated number',
      type: 'MESSAGING_OFFICIAL',
      phoneNumber: '+4915100000055',
      officialBusinessAccount: true,
      phoneNumberId: PHONE_NUMBER_ID,
      accessToken: 'gated-token',
    }));
    const response = await requestGroup(api, token, { channelId, subject: 'Gated group' });
    expect(response.status).toBe(202);
    const status = await untilFinal(api, token, ((await response.json()) as { requestId: string }).requestId);
    expect(status.status).toBe('created');
    chatId = status.chatId!;
    groupId = (await deps().chats.getChat(api.orgId, chatId))!.externalChatId!;
    joinRequestId = simulator().requestToJoin(groupId, '4915100000551');
    await simulator().flushWebhooks();
    await eventually(async () => {
      expect(await deps().chats.listJoinRequests(api.orgId, chatId, { limit: 10 })).toMatchObject({
        items: [expect.objectContaining({ joinRequestId })],
      });
    });

    const disabled = await wpcrm('channel', 'disable', '--channel', channelId);
    expect(disabled).toMatchObject({ channelId, status: 'disabled' });
    disabledFrom = simulator().requestLog.length;
  });

  const routes: [string, () => { method: string; path: string; json?: unknown; headers?: Record<string, string> }][] = [
    [
      'PATCH /groups/:orgId/:chatId',
      () => ({ method: 'PATCH', path: `/groups/${api.orgId}/${chatId}`, json: { subject: 'Renamed' } }),
    ],
    ['DELETE /groups/:orgId/:chatId', () => ({ method: 'DELETE', path: `/groups/${api.orgId}/${chatId}` })],
    [
      'POST /groups/:orgId/:chatId/participants',
      () => ({
        method: 'POST',
        path: `/groups/${api.orgId}/${chatId}/participants`,
        json: { phoneNumbers: ['+4915100000552'] },
      }),
    ],
    [
      'DELETE /groups/:orgId/:chatId/participants',
      () => ({
        method: 'DELETE',
        path: `/groups/${api.orgId}/${chatId}/participants`,
        json: { phoneNumbers: ['+4915100000552'] },
      }),
    ],
    [
      'GET /groups/:orgId/:chatId/invite-link',
      () => ({ method: 'GET', path: `/groups/${api.orgId}/${chatId}/invite-link` }),
    ],
    [
      'POST /groups/:orgId/:chatId/invite-link/reset',
      () => ({ method: 'POST', path: `/groups/${api.orgId}/${chatId}/invite-link/reset` }),
    ],
    [
      'POST /groups/:orgId/:chatId/join-requests/approve',
      () => ({
        method: 'POST',
        path: `/groups/${api.orgId}/${chatId}/join-requests/approve`,
        json: { joinRequestIds: [joinRequestId] },
      }),
    ],
    [
      'POST /groups/:orgId/:chatId/join-requests/reject',
      () => ({
        method: 'POST',
        path: `/groups/${api.orgId}/${chatId}/join-requests/reject`,
        json: { joinRequestIds: [joinRequestId] },
      }),
    ],
    [
      'POST /messaging/send-message',
      () => ({ method: 'POST', path: '/messaging/send-message', json: { chatId, text: 'Refused by the gate' } }),
    ],
    [
      'POST /groups/:orgId',
      () => ({
        method: 'POST',
        path: `/groups/${api.orgId}`,
        json: { channelId, subject: 'Refused by the gate' },
        headers: { 'idempotency-key': 'gate-create-1' },
      }),
    ],
  ];

  it.each(routes)('answers %s with 422 CHANNEL_DISABLED', async (_, route) => {
    const { method, path, json, headers } = route();

    const response = await api.call(path, { method, token, json, headers });

    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ code: 'CHANNEL_DISABLED' });
  });

  it('leaves the group, its invite link, its join requests and its messages as they were', async () => {
    const chat = await deps().chats.getChat(api.orgId, chatId);
    const messages = await deps().chats.listMessages(api.orgId, chatId, { limit: 10 });
    const joinRequests = await deps().chats.listJoinRequests(api.orgId, chatId, { limit: 10 });

    expect(chat).toMatchObject({
      name: 'Gated group',
      groupStatus: 'active',
      inviteLink: simulator().group(groupId)!.inviteLink,
    });
    expect(messages.items.filter((message) => message.text === 'Refused by the gate')).toEqual([]);
    expect(joinRequests.items.map((request) => request.joinRequestId)).toEqual([joinRequestId]);
  });

  it('fails a queued group request not yet submitted with CHANNEL_DISABLED and group.creation_failed', async () => {
    const { requestId } = await storedRequest();

    await deps().queue.send(GROUP_REQUESTS_QUEUE, { orgId: api.orgId, requestId });

    const failed = await eventually(async () => {
      const request = await deps().groups.get(api.orgId, requestId);
      expect(request?.status).toBe('failed');
      return request!;
    });
    expect(failed.error).toMatchObject({ code: 'CHANNEL_DISABLED' });
    await eventually(() => expect(published('group.creation_failed', 'request_id', requestId)).toHaveLength(1));
  });

  it('fails a queued message with CHANNEL_DISABLED and message.status failed, without sending it', async () => {
    const messageId = deps().ids.next('msg');
    await deps().chats.createMessage({
      messageId,
      chatId,
      orgId: api.orgId,
      direction: 'OUTBOUND',
      from: 'CRM_ADMIN',
      sentBy: 'crd_gate',
      text: 'Queued before disable',
      status: 'queued',
      createdAt: new Date().toISOString(),
    });

    await deps().queue.send(OUTBOUND_MESSAGES_QUEUE, { orgId: api.orgId, chatId, messageId });

    const failed = await eventually(async () => {
      const message = await deps().chats.getMessage(api.orgId, chatId, messageId);
      expect(message?.status).toBe('failed');
      return message!;
    });
    expect(failed.error).toMatchObject({ code: 'CHANNEL_DISABLED' });
    await eventually(() => expect(published('message.status', 'message_id', messageId)).toHaveLength(1));
  });

  it('has the sweeper fail a timed-out submitted request with CHANNEL_DISABLED without asking Meta, and keep one Meta confirmed waiting', async () => {
    const past = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString();
    const waitingNetworkId = 'gate-network-request-3';
    await deps().groups.holdConfirmation(
      api.orgId,
      waitingNetworkId,
      { phoneNumberId: PHONE_NUMBER_ID, group: { request_id: waitingNetworkId, group_id: WAITING_GROUP } },
      new Date(),
    );
    const waiting = await storedRequest({
      status: 'creating',
      networkRequestId: waitingNetworkId,
      createdAt: past(700),
      updatedAt: past(700),
    });
    const { requestId } = await storedRequest({
      status: 'creating',
      submittedAt: past(690),
      createdAt: past(700),
      updatedAt: past(690),
    });

    const failed = await eventually(async () => {
      const request = await deps().groups.get(api.orgId, requestId);
      expect(request?.status).toBe('failed');
      return request!;
    });

    expect(failed.error).toMatchObject({ code: 'CHANNEL_DISABLED' });
    expect(await deps().groups.get(api.orgId, waiting.requestId)).toMatchObject({ status: 'creating' });
  });

  it("records a group Meta confirmed after the disable with the notification's invite link, calling nothing", async () => {
    const networkRequestId = 'gate-network-request-1';
    const { requestId } = await storedRequest({ status: 'creating', networkRequestId });

    const response = await postNotification(
      api,
      groupCreated(networkRequestId, CONFIRMED_GROUP, 'https://chat.whatsapp.com/GateConfirmed'),
    );

    expect(response.status).toBe(200);
    const created = await eventually(async () => {
      const request = await deps().groups.get(api.orgId, requestId);
      expect(request?.status).toBe('created');
      return request!;
    });
    expect(created.inviteLink).toBe('https://chat.whatsapp.com/GateConfirmed');
    expect(await deps().chats.getChat(api.orgId, created.chatId!)).toMatchObject({ externalChatId: CONFIRMED_GROUP });
  });

  it('keeps a confirmation without an invite link for later instead of asking Meta for the link', async () => {
    const networkRequestId = 'gate-network-request-2';
    const { requestId } = await storedRequest({ status: 'creating', networkRequestId });

    const response = await postNotification(api, groupCreated(networkRequestId, UNLINKED_GROUP));

    expect(response.status).toBe(200);
    await eventually(async () => {
      expect(await deps().groups.heldConfirmation(api.orgId, networkRequestId)).toMatchObject({
        group: { group_id: UNLINKED_GROUP },
      });
    });
    expect(await deps().groups.get(api.orgId, requestId)).toMatchObject({ status: 'creating' });
  });

  it('let no call for the channel reach the simulator while it was disabled', async () => {
    await simulator().flushWebhooks();

    expect(callsForChannel()).toEqual([]);
  });

  it('calls Meta for the channel again at once after channel enable', async () => {
    const enabled = await wpcrm('channel', 'enable', '--channel', channelId);

    const response = await api.call(`/groups/${api.orgId}/${chatId}/invite-link`, { token });

    expect(enabled).toMatchObject({ channelId, status: 'active', disabledAt: null });
    expect(response.status).toBe(200);
    // The sweeper may now ask Meta for the request that waited too: only the route's own call is asserted.
    expect(callsForChannel()).toContainEqual(
      expect.objectContaining({ method: 'GET', path: `/${groupId}/invite_link` }),
    );
  });
});
