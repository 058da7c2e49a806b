/**
 * Meta's notifications as Meta actually sends them (CONTRACT §16, issue 20). Each published variant has one fixture
 * under test/fixtures/meta/ (written by us from the shapes Meta documents), posted signed to the local stack and
 * asserted through the HTTP API and the events delivered to a subscribed webhook.
 *
 * | Variant (§16)                                                          | Fixture(s)                                        | Test                                                 |
 * |------------------------------------------------------------------------|---------------------------------------------------|------------------------------------------------------|
 * | one batch, valid items beside unreadable ones → valid applied, 200     | batch-valid-and-unreadable                        | applies the readable items of a batch …              |
 * | only non-JSON → 400, bad signature → 401; JSON without entries → 200   | (inline)                                          | answers 400 for a signed body that is not JSON …     |
 * | group_create failure, error code "131215" (string), timestamp string  | lifecycle-create-failed-string-code               | fails a group request … error code is a string       |
 * | initiated_by beside the group object (participant) → left              | participants-left-initiated-by-beside-group       | reads initiated_by in either place                   |
 * | initiated_by on the group object (participant) → left                  | participants-left-initiated-by-on-group           | reads initiated_by in either place                   |
 * | no initiated_by, request_id → removed (a member)                       | participants-remove-no-initiator-with-request     | without initiated_by, … publishes removed            |
 * | no initiated_by, no request_id → left (a member)                       | participants-remove-no-initiator                  | without initiated_by, … publishes left               |
 * | field group_participant_update, type group_add_participants, int ts    | participants-add-openapi-names                    | reads the OpenAPI spellings …                        |
 * | type group_remove_participants, initiated_by business, int timestamp   | participants-remove-openapi-names                 | reads the OpenAPI spellings …                        |
 * | participant known only by user_id (+ username) → user_ids              | participants-add-user-id-only                     | stores and announces a participant known only by …   |
 * | join request by wa_id / by user_id; approval = participants_add        | join-request-created(-user-id), join-request-approved | takes an approved join request … off the list    |
 * | removal partly failed (failed_participants, 131201, string code)       | participants-remove-partial                       | publishes removed … and errors for the others        |
 * | removal failed entirely                                                | participants-remove-failed                        | changes nothing and publishes nothing when a removal failed entirely |
 * | unsupported inbound message (130501)                                   | message-unsupported                               | publishes an unsupported inbound message …           |
 * | status naming the group by recipient_id + recipient_type, recipient_participant_id | status-group-recipient-participant-id | keeps each member's delivered and read … |
 * | status naming the group by group_id, participant_recipient_id, int ts  | status-group-participant-recipient-id             | keeps each member's delivered and read …             |
 * | failure naming a member → message not failed                           | status-group-participant-failed                   | keeps each member's delivered and read …             |
 * | unknown message → 404 MESSAGE_NOT_FOUND                                | —                                                 | answers the receipts of an unknown message 404 …     |
 * | late group_suspend after group_suspend_cleared                         | status-suspend, status-suspend-cleared            | never rolls a group's status back                    |
 * | older group_settings_update                                            | settings-subject-updated                          | never rolls settings back                            |
 * | add older than the member's last removal                               | participants-add-openapi-names, …-on-group        | never rolls a member back                            |
 * | invite template per channel                                            | —                                                 | invites with the channel's invite template …         |
 * Outbound empty 2xx bodies: test/unit/graph/graph-network.test.ts ("takes a 2xx with … as success"); Meta refusing
 * the invite template (132001): test/unit/chats/group-members.test.ts; the CLI flags: test/integration/cli.test.ts;
 * the alarm: test/infra/service-stack.test.ts ("alarms on an unreadable Meta notification item"). The shapes of
 * issue 26 (ids as numbers, no timestamp, event identity from content, members and settings, Meta's OpenAPI
 * examples): test/integration/meta-shapes.test.ts.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { config } from '#shared/config/core';
import { deps } from '#shared/config/deps';
import { NETWORK_NOTIFICATION_UNREADABLE } from '#shared/domain/network/notification';
import { createChannel } from '#shared/domain/orgs/administer';
import { logger } from '#shared/observability/logger';
import { createdGroup, requestGroup, untilFinal } from '#test/support/groups';
import { eventually, useLocalStack } from '#test/support/local-stack';
import { metaFixture, notifyFixture, postNotification } from '#test/support/meta';
import { useReceiver } from '#test/support/receiver';
import { signMetaBody } from '#test/support/whatsapp';

type Body = Record<string, unknown>;

describe("Meta's published notification variants (CONTRACT §16)", () => {
  const api = useLocalStack();
  const receiver = useReceiver();
  let admin: string;
  let sequence = 0;
  const unique = (prefix: string) => `${prefix}${Date.now()}${++sequence}`;
  const waId = () => `49151${String(Date.now() + ++sequence).slice(-8)}`;

  beforeAll(async () => {
    admin = await api.token('CRM_ADMIN');
    const response = await api.call(`/webhooks/${api.orgId}`, {
      method: 'POST',
      token: admin,
      json: { url: `${receiver.url}/all` },
    });
    expect(response.status).toBe(201);
  });

  afterEach(() => vi.restoreAllMocks());

  const deliveredTo = (type: string, chatId: string) =>
    receiver
      .requestsTo('/all')
      .map((request) => JSON.parse(request.body) as Body)
      .filter((body) => body.type === type && body.chat_id === chatId);
  /** The `count` events of `type` about `chatId`, once delivered. */
  const delivered = (type: string, chatId: string, count = 1) =>
    eventually(() => {
      const found = deliveredTo(type, chatId);
      expect(found).toHaveLength(count);
      return found;
    });
  const participants = async (chatId: string) =>
    (
      (await (await api.call(`/groups/${api.orgId}/${chatId}/participants`, { token: admin })).json()) as {
        participants: { phoneNumber: string | null; userId: string | null }[];
      }
    ).participants;
  const messages = async (chatId: string) =>
    (
      (await (await api.call(`/chats/${api.orgId}/${chatId}/messages?limit=100`, { token: admin })).json()) as {
        messages: { text: string; from: string }[];
      }
    ).messages;

  it('applies the readable items of a batch, skips and alerts on each unreadable one, and answers 200', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'Mixed batch');
    const member = waId();
    const warnings = vi.spyOn(logger, 'warn');
    const text = unique('hello ');

    const response = await postNotification(
      api,
      metaFixture('batch-valid-and-unreadable', {
        GROUP_ID: groupId,
        WA_ID: member,
        OTHER_WA_ID: waId(),
        WAMID: unique('wamid.batch-'),
        TEXT: text,
      }),
    );

    expect(response.status).toBe(200);
    expect(await participants(chatId)).toEqual([expect.objectContaining({ phoneNumber: `+${member}` })]);
    expect((await messages(chatId)).map((message) => message.text)).toEqual([text]);
    const [joined] = await delivered('group.participants_changed', chatId);
    expect(joined).toMatchObject({ change: 'joined', phone_numbers: [`+${member}`] });
    const alerts = warnings.mock.calls
      .map(([, extra]) => extra as unknown as Body)
      .filter((extra) => extra?.alert === NETWORK_NOTIFICATION_UNREADABLE);
    // One alert per unreadable item, in no particular order: the envelope is read when the batch is sorted by
    // organisation, each organisation's items when its part is applied, and the two run in separate invocations.
    expect(alerts).toHaveLength(5);
    expect(alerts).toEqual(
      expect.arrayContaining([
        {
          alert: NETWORK_NOTIFICATION_UNREADABLE,
          field: 'group_participants_update',
          type: 'group_participants_add',
          reason: expect.stringContaining('timestamp'),
        },
        {
          alert: NETWORK_NOTIFICATION_UNREADABLE,
          field: 'messages',
          type: 'text',
          reason: expect.stringContaining('id'),
        },
        { alert: NETWORK_NOTIFICATION_UNREADABLE, field: 'messages', type: null, reason: 'value: expected an object' },
        {
          alert: NETWORK_NOTIFICATION_UNREADABLE,
          field: null,
          type: null,
          reason: 'entry.changes: expected an array of changes',
        },
        {
          alert: NETWORK_NOTIFICATION_UNREADABLE,
          field: 'group_status_update',
          type: 'group_renamed_by_meta',
          reason: expect.any(String),
        },
      ]),
    );
    // No personal data in the alert lines: neither the member's number nor the message text.
    expect(JSON.stringify(alerts)).not.toContain(member);
    expect(JSON.stringify(alerts)).not.toContain(text);
  });

  it('answers 400 for a signed body that is not JSON, 401 for a bad signature, 200 for JSON that is no notification', async () => {
    const bad = await api.call('/network/whatsapp/webhook', {
      method: 'POST',
      body: '{not json',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': signMetaBody('{not json', config().whatsapp.appSecret),
      },
    });
    const unsigned = await api.call('/network/whatsapp/webhook', {
      method: 'POST',
      body: '{"object":"whatsapp_business_account","entry":[]}',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': 'sha256=00' },
    });
    const noEntries = await postNotification(api, { object: 'whatsapp_business_account' });

    expect(bad.status).toBe(400);
    expect(unsigned.status).toBe(401);
    expect(noEntries.status).toBe(200);
  });

  it('fails a group request from a group_create failure whose error code is a string (131215)', async () => {
    api.stack.simulator!.scriptNextGroup({ outcome: 'silent' });
    const response = await requestGroup(api, admin, { subject: 'String code' });
    const { requestId } = (await response.json()) as { requestId: string };
    const networkRequestId = await eventually(async () => {
      const request = await deps().groups.get(api.orgId, requestId);
      expect(request?.networkRequestId).toEqual(expect.any(String));
      return request!.networkRequestId!;
    });

    await notifyFixture(api, 'lifecycle-create-failed-string-code', {
      REQUEST_ID: networkRequestId,
      SUBJECT: 'String code',
    });
    const status = await untilFinal(api, admin, requestId);

    expect(status).toMatchObject({
      status: 'failed',
      error: { code: 'CHANNEL_NOT_ELIGIBLE', message: 'Groups feature not available for this number' },
    });
  });

  it.each([['participants-left-initiated-by-beside-group'], ['participants-left-initiated-by-on-group']])(
    'reads initiated_by in either place: %s publishes left',
    async (fixture) => {
      const { chatId, groupId } = await createdGroup(api, admin, fixture);
      const member = waId();
      await notifyFixture(api, 'participants-add-openapi-names', { GROUP_ID: groupId, WA_ID: member });

      await notifyFixture(api, fixture, { GROUP_ID: groupId, WA_ID: member });

      const [event] = await delivered('group.participants_changed', chatId, 2).then((events) =>
        events.filter((body) => body.change !== 'joined'),
      );
      expect(event).toMatchObject({ change: 'left', phone_numbers: [`+${member}`] });
      expect(await participants(chatId)).toEqual([]);
    },
  );

  it.each([
    ['participants-remove-no-initiator-with-request', 'removed'],
    ['participants-remove-no-initiator', 'left'],
  ])('without initiated_by, %s publishes %s', async (fixture, change) => {
    const { chatId, groupId } = await createdGroup(api, admin, fixture);
    const member = waId();
    await notifyFixture(api, 'participants-add-openapi-names', { GROUP_ID: groupId, WA_ID: member });

    await notifyFixture(api, fixture, { GROUP_ID: groupId, WA_ID: member, REQUEST_ID: unique('req-') });

    const [, event] = await delivered('group.participants_changed', chatId, 2);
    expect(event).toMatchObject({ change, phone_numbers: [`+${member}`] });
  });

  it('reads the OpenAPI spellings (group_participant_update, group_add_participants, group_remove_participants, integer timestamps)', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'OpenAPI names');
    const member = waId();
    const at = Math.floor(Date.now() / 1000) - 60;

    await notifyFixture(api, 'participants-add-openapi-names', { GROUP_ID: groupId, WA_ID: member, TS: at });
    expect(await participants(chatId)).toEqual([
      { phoneNumber: `+${member}`, userId: null, joinedAt: new Date(at * 1000).toISOString() },
    ]);
    await notifyFixture(api, 'participants-remove-openapi-names', {
      GROUP_ID: groupId,
      WA_ID: member,
      TS: at + 1,
      REQUEST_ID: unique('req-'),
    });

    const events = await delivered('group.participants_changed', chatId, 2);
    expect(events.map((event) => [event.change, event.phone_numbers])).toEqual([
      ['joined', [`+${member}`]],
      ['removed', [`+${member}`]],
    ]);
    expect(await participants(chatId)).toEqual([]);
  });

  const joinRequests = async (chatId: string) =>
    (
      (await (await api.call(`/groups/${api.orgId}/${chatId}/join-requests`, { token: admin })).json()) as {
        joinRequests: { joinRequestId: string; phoneNumber: string | null; userId: string | null }[];
      }
    ).joinRequests;

  it('stores and announces a participant known only by user_id (user_ids beside phone_numbers)', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'User ids');
    const userId = unique('US.');

    await notifyFixture(api, 'participants-add-user-id-only', {
      GROUP_ID: groupId,
      USER_ID: userId,
      USERNAME: 'someone.example',
    });

    expect(await participants(chatId)).toEqual([{ phoneNumber: null, userId, joinedAt: expect.any(String) }]);
    const [event] = await delivered('group.participants_changed', chatId);
    expect(event).toMatchObject({ change: 'joined', phone_numbers: [], user_ids: [userId], errors: [] });
  });

  it('takes an approved join request (participants_add naming the joiner) off the join-request list', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'Approved');
    const member = waId();
    const userId = unique('US.');
    const byPhone = unique('jr-');
    const byUser = unique('jr-');
    const stays = unique('jr-');
    await notifyFixture(api, 'join-request-created', { GROUP_ID: groupId, WA_ID: member, JOIN_REQUEST_ID: byPhone });
    await notifyFixture(api, 'join-request-created-user-id', {
      GROUP_ID: groupId,
      USER_ID: userId,
      USERNAME: 'joiner',
      JOIN_REQUEST_ID: byUser,
    });
    await notifyFixture(api, 'join-request-created', { GROUP_ID: groupId, WA_ID: waId(), JOIN_REQUEST_ID: stays });
    expect((await joinRequests(chatId)).map((request) => request.joinRequestId).sort()).toEqual(
      [byPhone, byUser, stays].sort(),
    );

    await notifyFixture(api, 'join-request-approved', { GROUP_ID: groupId, WA_ID: member, USER_ID: userId });

    expect((await joinRequests(chatId)).map((request) => request.joinRequestId)).toEqual([stays]);
    expect(await participants(chatId)).toEqual([
      { phoneNumber: `+${member}`, userId: null, joinedAt: expect.any(String) },
      { phoneNumber: null, userId, joinedAt: expect.any(String) },
    ]);
    const requested = deliveredTo('group.participants_changed', chatId).filter(
      (event) => event.change === 'join_requested' && event.join_request_id === byUser,
    );
    expect(requested).toEqual([expect.objectContaining({ phone_numbers: [], user_ids: [userId] })]);
    const events = await delivered('group.participants_changed', chatId, 4);
    expect(events.find((event) => event.change === 'joined')).toMatchObject({
      phone_numbers: [`+${member}`],
      user_ids: [userId],
    });
  });

  it('publishes removed for those removed and errors for the others when a removal partly failed', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'Partial removal');
    const removed = waId();
    const other = waId();
    const userId = unique('US.');
    await notifyFixture(api, 'participants-add-openapi-names', { GROUP_ID: groupId, WA_ID: removed });

    await notifyFixture(api, 'participants-remove-partial', {
      GROUP_ID: groupId,
      WA_ID: removed,
      OTHER_WA_ID: other,
      USER_ID: userId,
      REQUEST_ID: unique('req-'),
    });

    const events = await delivered('group.participants_changed', chatId, 2);
    expect(events[0]).toMatchObject({ change: 'joined', errors: [] });
    expect(events[1]).toMatchObject({
      change: 'removed',
      phone_numbers: [`+${removed}`],
      user_ids: [],
      errors: [
        {
          phone_number: `+${other}`,
          user_id: null,
          code: '131212',
          message: 'The participant is not a member of the group',
        },
        {
          phone_number: null,
          user_id: userId,
          code: '131212',
          message: 'The participant is not a member of the group',
        },
      ],
    });
    expect(await participants(chatId)).toEqual([]);
  });

  it('changes nothing and publishes nothing when a removal failed entirely, and logs it', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'Failed removal');
    const member = waId();
    await notifyFixture(api, 'participants-add-openapi-names', { GROUP_ID: groupId, WA_ID: member });
    await delivered('group.participants_changed', chatId);
    const warnings = vi.spyOn(logger, 'warn');

    await notifyFixture(api, 'participants-remove-failed', {
      GROUP_ID: groupId,
      WA_ID: member,
      REQUEST_ID: unique('req-'),
    });

    expect(await participants(chatId)).toEqual([expect.objectContaining({ phoneNumber: `+${member}` })]);
    expect(warnings).toHaveBeenCalledWith(
      expect.stringContaining('removal failed'),
      expect.objectContaining({ groupId, code: 131212 }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(deliveredTo('group.participants_changed', chatId)).toHaveLength(1);
  });

  it('publishes an unsupported inbound message (130501) with message_type unsupported, text null and its error', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'Unsupported');
    const member = waId();
    const wamid = unique('wamid.unsupported-');

    await notifyFixture(api, 'message-unsupported', { GROUP_ID: groupId, WA_ID: member, WAMID: wamid, NAME: 'Guest' });

    const [event] = await delivered('message.received', chatId);
    expect(event).toMatchObject({
      external_message_id: wamid,
      from: `+${member}`,
      message_type: 'unsupported',
      text: null,
      error: { code: '130501', message: 'Message type is currently not supported.' },
    });
    expect(await messages(chatId)).toEqual([expect.objectContaining({ from: `+${member}` })]);
  });

  /** A group with one member and an outbound message Meta accepted; returns the message's ids. */
  const sentGroupMessage = async (subject: string) => {
    const { chatId, groupId } = await createdGroup(api, admin, subject);
    api.stack.simulator!.join(groupId, waId());
    await api.stack.simulator!.flushWebhooks();
    await eventually(async () => expect((await participants(chatId)).length).toBe(1));
    const sent = await api.call('/messaging/send-message', {
      method: 'POST',
      token: admin,
      json: { chatId, text: subject },
    });
    const { messageId } = (await sent.json()) as { messageId: string };
    const wamid = await eventually(async () => {
      const stored = await deps().chats.getMessage(api.orgId, chatId, messageId);
      expect(stored?.status).toBe('delivered');
      return stored!.networkMessageId!;
    });
    return { chatId, groupId, messageId, wamid };
  };
  const receipts = async (chatId: string, messageId: string, query = '') => {
    const response = await api.call(`/chats/${api.orgId}/${chatId}/messages/${messageId}/receipts${query}`, {
      token: admin,
    });
    expect(response.status).toBe(200);
    return (await response.json()) as {
      receipts: { phoneNumber: string | null; userId: string | null; status: string; at: string }[];
      nextCursor: string | null;
    };
  };
  const messageStatus = async (chatId: string, messageId: string) =>
    (await deps().chats.getMessage(api.orgId, chatId, messageId))?.status;

  it('keeps each member’s delivered and read (both spellings), moves the message only forward, and names the member in message.status', async () => {
    const { chatId, groupId, messageId, wamid } = await sentGroupMessage('Receipts');
    const first = waId();
    const second = waId();
    const at = Math.floor(Date.now() / 1000);

    await notifyFixture(api, 'status-group-recipient-participant-id', {
      GROUP_ID: groupId,
      WAMID: wamid,
      WA_ID: first,
      STATUS: 'read',
      TS: at,
    });
    await notifyFixture(api, 'status-group-participant-recipient-id', {
      GROUP_ID: groupId,
      WAMID: wamid,
      WA_ID: second,
      STATUS: 'delivered',
      TS: at + 1,
    });
    await notifyFixture(api, 'status-group-recipient-participant-id', {
      GROUP_ID: groupId,
      WAMID: wamid,
      WA_ID: first,
      STATUS: 'delivered',
      TS: at + 2,
    });
    await notifyFixture(api, 'status-group-participant-failed', { GROUP_ID: groupId, WAMID: wamid, WA_ID: second });

    expect(await messageStatus(chatId, messageId)).toBe('read');
    const all = await receipts(chatId, messageId);
    expect(all.receipts).toHaveLength(3);
    expect(all.receipts).toEqual(
      expect.arrayContaining([
        { phoneNumber: `+${first}`, userId: null, status: 'read', at: new Date(at * 1000).toISOString() },
        { phoneNumber: `+${first}`, userId: null, status: 'delivered', at: new Date((at + 2) * 1000).toISOString() },
        { phoneNumber: `+${second}`, userId: null, status: 'delivered', at: new Date((at + 1) * 1000).toISOString() },
      ]),
    );
    const page = await receipts(chatId, messageId, '?limit=2');
    const rest = await receipts(chatId, messageId, `?limit=2&cursor=${page.nextCursor}`);
    expect([...page.receipts, ...rest.receipts]).toEqual(all.receipts);
    const statuses = await eventually(() => {
      const found = deliveredTo('message.status', chatId);
      expect(found.map((event) => event.status).sort()).toEqual(['delivered', 'read', 'sent']);
      return found;
    });
    expect(statuses.find((event) => event.status === 'read')).toMatchObject({
      message_id: messageId,
      participant: { phone_number: `+${first}`, user_id: null },
      error: null,
    });
    expect(statuses.find((event) => event.status === 'sent')).toMatchObject({ participant: null });
  });

  it('answers the receipts of an unknown message 404 MESSAGE_NOT_FOUND, and refuses an agent', async () => {
    const { chatId } = await createdGroup(api, admin, 'No such message');

    const missing = await api.call(`/chats/${api.orgId}/${chatId}/messages/msg_nope/receipts`, { token: admin });
    const agent = await api.call(`/chats/${api.orgId}/${chatId}/messages/msg_nope/receipts`, {
      token: await api.token('CRM_AGENT'),
    });

    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { code: string }).code).toBe('MESSAGE_NOT_FOUND');
    expect(agent.status).toBe(403);
  });

  const readGroup = async (chatId: string) =>
    (await (await api.call(`/groups/${api.orgId}/${chatId}`, { token: admin })).json()) as {
      subject: string;
      groupStatus: string;
    };
  const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

  it('never rolls a group’s status back: a late group_suspend after group_suspend_cleared changes nothing and publishes nothing', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'Late suspend');
    const at = Math.floor(Date.now() / 1000);
    await notifyFixture(api, 'status-suspend', { GROUP_ID: groupId, TS: at });
    await notifyFixture(api, 'status-suspend-cleared', { GROUP_ID: groupId, TS: at + 10 });
    await delivered('group.updated', chatId, 2);

    await notifyFixture(api, 'status-suspend', { GROUP_ID: groupId, TS: at + 5 });
    await notifyFixture(api, 'status-suspend', { GROUP_ID: groupId, TS: at });

    expect((await readGroup(chatId)).groupStatus).toBe('active');
    await settle();
    expect(deliveredTo('group.updated', chatId).map((event) => event.group_status)).toEqual(['suspended', 'active']);
  });

  it('never rolls settings back: an older group_settings_update changes nothing and publishes nothing', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'Settings order');
    const at = Math.floor(Date.now() / 1000);
    await notifyFixture(api, 'settings-subject-updated', {
      GROUP_ID: groupId,
      TS: at + 10,
      SUBJECT: 'Newer subject',
      REQUEST_ID: unique('req-'),
    });
    await delivered('group.updated', chatId);

    await notifyFixture(api, 'settings-subject-updated', {
      GROUP_ID: groupId,
      TS: at,
      SUBJECT: 'Older subject',
      REQUEST_ID: unique('req-'),
    });

    expect((await readGroup(chatId)).subject).toBe('Newer subject');
    await settle();
    expect(deliveredTo('group.updated', chatId)).toHaveLength(1);
  });

  it('never rolls a member back: an add older than the member’s last removal changes nothing and publishes nothing', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'Member order');
    const member = waId();
    const at = Math.floor(Date.now() / 1000);
    await notifyFixture(api, 'participants-add-openapi-names', { GROUP_ID: groupId, WA_ID: member, TS: at });
    await notifyFixture(api, 'participants-left-initiated-by-on-group', {
      GROUP_ID: groupId,
      WA_ID: member,
      TS: at + 10,
    });
    await delivered('group.participants_changed', chatId, 2);

    await notifyFixture(api, 'participants-add-openapi-names', { GROUP_ID: groupId, WA_ID: member, TS: at + 5 });

    expect(await participants(chatId)).toEqual([]);
    await settle();
    expect(deliveredTo('group.participants_changed', chatId).map((event) => event.change)).toEqual(['joined', 'left']);
  });

  it('invites with the channel’s invite template, by its name and language, and lists the channel with it', async () => {
    const { channelId } = await createChannel(deps(), {
      orgId: api.orgId,
      name: 'Own invite template',
      type: 'MESSAGING_OFFICIAL',
      phoneNumber: '+4915100000088',
      officialBusinessAccount: true,
      phoneNumberId: '100000000000088',
      accessToken: 'local-token',
      inviteTemplate: { name: 'acme_group_invite', language: 'de' },
    });
    const { requestId } = (await (await requestGroup(api, admin, { channelId, subject: 'Own template' })).json()) as {
      requestId: string;
    };
    const { chatId } = await untilFinal(api, admin, requestId);

    const response = await api.call(`/groups/${api.orgId}/${chatId}/participants`, {
      method: 'POST',
      token: admin,
      json: { phoneNumbers: ['+4915100000089'] },
    });
    const channels = (await (await api.call(`/channels/${api.orgId}?limit=100`, { token: admin })).json()) as {
      channels: { channelId: string; inviteTemplate: unknown }[];
    };

    expect(response.status).toBe(202);
    expect(((await response.json()) as { invitations: unknown[] }).invitations).toEqual([
      expect.objectContaining({ phoneNumber: '+4915100000089', status: 'sent' }),
    ]);
    const sent = api.stack.simulator!.requestLog.filter((entry) => entry.path === '/100000000000088/messages');
    expect(sent.map((entry) => (entry.body as { template: { name: string; language: unknown } }).template)).toEqual([
      expect.objectContaining({ name: 'acme_group_invite', language: { code: 'de' } }),
    ]);
    expect(channels.channels.find((channel) => channel.channelId === channelId)?.inviteTemplate).toEqual({
      name: 'acme_group_invite',
      language: 'de',
    });
  });
});
