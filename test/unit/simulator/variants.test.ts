import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GRAPH_VERSION, WhatsAppSimulator } from '#infra/local/simulator/server';
import { startWebhookReceiver, type WebhookReceiver } from '#test/support/whatsapp';

const PHONE = '100000000000001';
const OTHER_PHONE = '100000000000002';
const MEMBER = '4915100000001';
const SECOND = '4915100000002';

let simulator: WhatsAppSimulator;
let receiver: WebhookReceiver;
let baseUrl: string;

// biome-ignore lint/suspicious/noExplicitAny: answers and notifications are asserted field by field
type Answer = { status: number; text: string; body: any };

async function call(method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: 'Bearer token', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(2_000),
  });
  const text = await response.text();
  return { status: response.status, text, body: text ? JSON.parse(text) : undefined };
}

async function newGroup(phone = PHONE, members: string[] = []): Promise<string> {
  const created = await call('POST', `/${GRAPH_VERSION}/${phone}/groups`, {
    messaging_product: 'whatsapp',
    subject: 'VIP',
    join_approval_mode: 'approval_required',
  });
  await simulator.flushWebhooks();
  const groupId = simulator.groups(phone).find((group) => group.requestId === created.body.request_id)!.groupId;
  for (const member of members) simulator.join(groupId, member);
  await simulator.flushWebhooks();
  receiver.received.length = 0;
  return groupId;
}

async function sendToGroup(groupId: string, phone = PHONE): Promise<string> {
  const sent = await call('POST', `/${GRAPH_VERSION}/${phone}/messages`, {
    messaging_product: 'whatsapp',
    recipient_type: 'group',
    to: groupId,
    type: 'text',
    text: { body: 'Hello group' },
  });
  return sent.body.messages[0].id;
}

/** Every change as sent: field and value. */
const changes = () => receiver.received.flatMap(({ body }) => body.entry.flatMap((entry) => entry.changes));
const groupEvents = (field: string) => receiver.values(field).flatMap((value) => value.groups);
const statuses = () => receiver.values('messages').flatMap((value) => value.statuses ?? []);

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  simulator = new WhatsAppSimulator({ appSecret: 'secret', webhookUrl: receiver.url, webhookDelayMs: 5 });
  baseUrl = `http://127.0.0.1:${await simulator.listen(0)}`;
});

afterEach(async () => {
  await simulator.flushWebhooks();
  await simulator.reset();
  receiver.received.length = 0;
});

afterAll(async () => {
  await simulator.close();
  await receiver.close();
});

describe('WhatsAppSimulator notification variants', () => {
  it('sends the pages spelling by default: group_participants_update, string timestamps, numeric codes', async () => {
    const groupId = await newGroup(PHONE, [MEMBER]);

    simulator.leave(groupId, MEMBER);
    await call('DELETE', `/${GRAPH_VERSION}/${groupId}/participants`, {
      messaging_product: 'whatsapp',
      participants: [{ user: SECOND }],
    });
    await simulator.flushWebhooks();

    expect(changes().map((change) => change.field)).toEqual(['group_participants_update', 'group_participants_update']);
    const [left, failed] = groupEvents('group_participants_update');
    expect(left).toEqual({
      timestamp: expect.stringMatching(/^\d+$/),
      group_id: groupId,
      type: 'group_participants_remove',
      removed_participants: [{ wa_id: MEMBER }],
      initiated_by: 'participant',
    });
    expect(failed.errors[0].code).toBe(131212);
    expect(failed.failed_participants[0].errors[0].code).toBe(131212);
  });

  it('spells the field group_participant_update and the types group_add_participants / group_remove_participants', async () => {
    simulator.setVariants({
      participantsField: 'group_participant_update',
      participantTypes: 'group_add_participants',
    });
    const groupId = await newGroup();

    simulator.join(groupId, MEMBER);
    await simulator.flushWebhooks();
    simulator.leave(groupId, MEMBER);
    await simulator.flushWebhooks();

    expect(changes().map((change) => change.field)).toEqual(['group_participant_update', 'group_participant_update']);
    expect(groupEvents('group_participant_update').map((event) => event.type)).toEqual([
      'group_add_participants',
      'group_remove_participants',
    ]);
  });

  it('writes error codes as strings in every errors[] of a notification', async () => {
    simulator.setVariants({ errorCodes: 'string' });
    const groupId = await newGroup(PHONE, [MEMBER]);
    simulator.scriptNextGroup({ outcome: 'fail', code: 131215 });

    await call('POST', `/${GRAPH_VERSION}/${PHONE}/groups`, { messaging_product: 'whatsapp', subject: 'Refused' });
    await call('DELETE', `/${GRAPH_VERSION}/${groupId}/participants`, {
      messaging_product: 'whatsapp',
      participants: [{ user: MEMBER }, { user: SECOND }],
    });
    await simulator.flushWebhooks();

    expect(groupEvents('group_lifecycle_update')[0].errors).toEqual([expect.objectContaining({ code: '131215' })]);
    const [partial] = groupEvents('group_participants_update');
    expect(partial.errors).toEqual([expect.objectContaining({ code: '131201' })]);
    expect(partial.failed_participants).toEqual([
      { input: SECOND, errors: [expect.objectContaining({ code: '131212', error_data: expect.any(Object) })] },
    ]);
  });

  it('writes timestamps as integers', async () => {
    simulator.setVariants({ timestamps: 'number' });

    const groupId = await newGroup();
    simulator.join(groupId, MEMBER);
    await simulator.flushWebhooks();

    expect(groupEvents('group_participants_update')[0].timestamp).toEqual(expect.any(Number));
  });

  it('puts initiated_by beside the group object, on the change value', async () => {
    simulator.setVariants({ initiatedBy: 'value' });
    const groupId = await newGroup(PHONE, [MEMBER]);

    simulator.leave(groupId, MEMBER);
    await simulator.flushWebhooks();

    const value = receiver.values('group_participants_update')[0]!;
    expect(value.initiated_by).toBe('participant');
    expect(value.groups[0]).not.toHaveProperty('initiated_by');
  });

  it('leaves initiated_by out entirely', async () => {
    simulator.setVariants({ initiatedBy: 'absent' });
    const groupId = await newGroup(PHONE, [MEMBER]);

    await call('DELETE', `/${GRAPH_VERSION}/${groupId}/participants`, {
      messaging_product: 'whatsapp',
      participants: [{ user: MEMBER }],
    });
    await simulator.flushWebhooks();

    const value = receiver.values('group_participants_update')[0]!;
    expect(value).not.toHaveProperty('initiated_by');
    expect(value.groups[0]).not.toHaveProperty('initiated_by');
    expect(value.groups[0].request_id).toEqual(expect.any(String));
  });

  it('names participants by user_id and username only, and removes them by user_id', async () => {
    simulator.setVariants({ participantIds: 'user_id' });
    const groupId = await newGroup();
    const userId = simulator.userIdOf(MEMBER);

    simulator.join(groupId, MEMBER);
    const joinRequestId = simulator.requestToJoin(groupId, SECOND);
    await call('POST', `/${GRAPH_VERSION}/${groupId}/join_requests`, {
      messaging_product: 'whatsapp',
      join_requests: [joinRequestId],
    });
    await simulator.flushWebhooks();
    const removal = await call('DELETE', `/${GRAPH_VERSION}/${groupId}/participants`, {
      messaging_product: 'whatsapp',
      participants: [{ user: userId }],
    });
    await simulator.flushWebhooks();

    expect(userId).toMatch(/^DE\.\d+$/);
    const [joined, requested, approved, removed] = groupEvents('group_participants_update');
    expect(joined.added_participants).toEqual([{ user_id: userId, username: 'user0001' }]);
    expect(requested).toMatchObject({ type: 'group_join_request_created', user_id: simulator.userIdOf(SECOND) });
    expect(requested).not.toHaveProperty('wa_id');
    expect(approved.added_participants).toEqual([{ user_id: simulator.userIdOf(SECOND), username: 'user0002' }]);
    expect(removal.status).toBe(200);
    expect(removed.removed_participants).toEqual([{ input: userId, user_id: userId, username: 'user0001' }]);
    expect(simulator.group(groupId)?.participants).toEqual([SECOND]);
    const info = await call('GET', `/${GRAPH_VERSION}/${groupId}?fields=participants`);
    expect(info.body.participants).toEqual([{ user_id: simulator.userIdOf(SECOND), username: 'user0002' }]);
  });

  it('sends delivered per participant with recipient_participant_id, the group named by recipient_id', async () => {
    simulator.setVariants({ groupReceipts: 'participants' });
    const groupId = await newGroup(PHONE, [MEMBER, SECOND]);

    await sendToGroup(groupId);
    await simulator.flushWebhooks();

    const [sent, ...delivered] = statuses();
    expect(sent).toMatchObject({ status: 'sent', recipient_id: groupId, recipient_type: 'group' });
    expect(sent).not.toHaveProperty('recipient_participant_id');
    expect(delivered).toEqual([
      expect.objectContaining({ status: 'delivered', recipient_id: groupId, recipient_participant_id: MEMBER }),
      expect.objectContaining({ status: 'delivered', recipient_id: groupId, recipient_participant_id: SECOND }),
    ]);
    expect(receiver.values('messages')).toHaveLength(2);
  });

  it('sends one member read with participant_recipient_id, the group named by group_id', async () => {
    simulator.setVariants({ participantKey: 'participant_recipient_id', groupKey: 'group_id' });
    const groupId = await newGroup(PHONE, [MEMBER, SECOND]);
    const messageId = await sendToGroup(groupId);
    await simulator.flushWebhooks();
    receiver.received.length = 0;

    simulator.setMessageStatus(messageId, 'read', undefined, SECOND);
    await simulator.flushWebhooks();

    expect(statuses()).toEqual([
      {
        id: messageId,
        status: 'read',
        timestamp: expect.any(String),
        group_id: groupId,
        participant_recipient_id: SECOND,
      },
    ]);
  });

  it('names the member of a receipt by user_id in the user_id variant', async () => {
    simulator.setVariants({ groupReceipts: 'participants', participantIds: 'user_id' });
    const groupId = await newGroup(PHONE, [MEMBER]);
    const messageId = await sendToGroup(groupId);
    await simulator.flushWebhooks();
    receiver.received.length = 0;

    simulator.setMessageStatus(messageId, 'read');
    await simulator.flushWebhooks();

    expect(statuses()).toEqual([expect.objectContaining({ recipient_participant_id: simulator.userIdOf(MEMBER) })]);
  });

  it('sends an unsupported inbound message with error 130501 and no text', async () => {
    const groupId = await newGroup(PHONE, [MEMBER]);

    const answer = await call('POST', `/_simulator/groups/${groupId}/messages`, { from: MEMBER, type: 'unsupported' });
    await simulator.flushWebhooks();

    const [message] = receiver.values('messages')[0]!.messages;
    expect(message).toEqual({
      from: MEMBER,
      id: answer.body.messageId,
      timestamp: expect.any(String),
      type: 'unsupported',
      errors: [
        {
          code: 130501,
          title: 'Message type is not supported',
          message: 'Message type unknown',
          error_data: { details: 'Message type is currently not supported.' },
        },
      ],
      group_id: groupId,
    });
  });

  it('answers settings updates and participant removals with 200 and no body', async () => {
    simulator.setVariants({ emptyBodies: true }, { phoneNumberId: PHONE });
    const groupId = await newGroup(PHONE, [MEMBER]);
    const otherGroupId = await newGroup(OTHER_PHONE);

    const settings = await call('POST', `/${GRAPH_VERSION}/${groupId}`, {
      messaging_product: 'whatsapp',
      subject: 'New',
    });
    const removal = await call('DELETE', `/${GRAPH_VERSION}/${groupId}/participants`, {
      messaging_product: 'whatsapp',
      participants: [{ user: MEMBER }],
    });
    const other = await call('POST', `/${GRAPH_VERSION}/${otherGroupId}`, {
      messaging_product: 'whatsapp',
      subject: 'X',
    });

    expect([settings.status, settings.text]).toEqual([200, '']);
    expect([removal.status, removal.text]).toEqual([200, '']);
    expect(other.body).toEqual({ success: true });
    expect(simulator.group(groupId)).toMatchObject({ subject: 'New', participants: [] });
  });

  it('accepts only the configured invite template and refuses others with 132001', async () => {
    simulator.setVariants({ inviteTemplate: { name: 'vip_invite', language: 'de' } });
    const groupId = await newGroup();
    const invite = (name: string, language: string) =>
      call('POST', `/${GRAPH_VERSION}/${PHONE}/messages`, {
        messaging_product: 'whatsapp',
        to: '4915100000099',
        type: 'template',
        template: {
          name,
          language: { code: language },
          components: [{ type: 'body', parameters: [{ type: 'group_id', group_id: groupId }] }],
        },
      });

    const standard = await invite('group_invite_link', 'en_US');
    const wrongLanguage = await invite('vip_invite', 'en');
    const configured = await invite('vip_invite', 'de');

    expect(standard.status).toBe(404);
    expect(standard.body.error).toMatchObject({
      code: 132001,
      message: '(#132001) Template name does not exist in the translation',
      error_data: { details: 'template name (group_invite_link) does not exist in en_US' },
    });
    expect(wrongLanguage.body.error.code).toBe(132001);
    expect(configured.status).toBe(200);
    expect(configured.body.messages[0].message_status).toBe('accepted');
  });

  it('replays a notification later with older timestamps', async () => {
    const groupId = await newGroup();
    simulator.suspend(groupId);
    await simulator.flushWebhooks();
    simulator.clearSuspension(groupId);
    await simulator.flushWebhooks();

    const answer = await call('POST', '/_simulator/replay', { groupId, type: 'group_suspend', ageSeconds: 120 });
    await simulator.flushWebhooks();
    const before = await call('POST', '/_simulator/replay', { groupId, field: 'group_status_update', skip: 1 });
    await simulator.flushWebhooks();

    expect([answer.body, before.body]).toEqual([
      { replayed: 'group_status_update' },
      { replayed: 'group_status_update' },
    ]);
    const [suspended, cleared, late, earlier] = groupEvents('group_status_update');
    expect([suspended.type, cleared.type, late.type]).toEqual([
      'group_suspend',
      'group_suspend_cleared',
      'group_suspend',
    ]);
    expect(Number(late.timestamp)).toBe(Number(suspended.timestamp) - 120);
    expect(late.timestamp).toEqual(expect.any(String));
    expect([earlier.type, Number(earlier.timestamp)]).toEqual([
      'group_suspend_cleared',
      Number(cleared.timestamp) - 60,
    ]);
  });

  it('mixes an unreadable item into the same list, before the real one', async () => {
    simulator.setVariants({ unreadable: 'item' });
    const groupId = await newGroup();

    simulator.join(groupId, MEMBER);
    await simulator.flushWebhooks();

    const value = receiver.values('group_participants_update')[0]!;
    expect(value.groups).toEqual([
      { type: 42, group_id: null, timestamp: 'yesterday' },
      expect.objectContaining({ type: 'group_participants_add', group_id: groupId }),
    ]);
  });

  it('mixes an unreadable change into the batch, before the real one', async () => {
    simulator.setVariants({ unreadable: 'change' });
    const groupId = await newGroup();

    simulator.join(groupId, MEMBER);
    await simulator.flushWebhooks();

    const [unreadable, real] = receiver.received[0]!.body.entry[0]!.changes;
    expect(unreadable).toEqual({
      field: 'group_participants_update',
      value: { messaging_product: 'whatsapp', metadata: real!.value.metadata, groups: 'unreadable' },
    });
    expect(real!.value.groups[0].type).toBe('group_participants_add');
  });
});

describe('WhatsAppSimulator variant control API', () => {
  it('applies a group override over its phone number over the global choice', async () => {
    const first = await newGroup();
    const second = await newGroup();
    await call('POST', '/_simulator/variants', { timestamps: 'number' });
    await call('POST', '/_simulator/variants', { phoneNumberId: PHONE, initiatedBy: 'value' });
    const answer = await call('POST', '/_simulator/variants', { groupId: second, preset: 'openapi' });

    simulator.join(first, MEMBER);
    simulator.join(second, MEMBER);
    await simulator.flushWebhooks();

    expect(answer.body.variants.global).toMatchObject({ timestamps: 'number', initiatedBy: 'group' });
    expect(answer.body.variants.phoneNumbers[PHONE]).toEqual({ initiatedBy: 'value' });
    expect(answer.body.variants.groups[second]).toMatchObject({ participantsField: 'group_participant_update' });
    expect(simulator.variantsFor(PHONE, second)).toMatchObject({
      initiatedBy: 'value',
      timestamps: 'number',
      participantTypes: 'group_add_participants',
    });
    expect(
      changes()
        .map((change) => [change.value.groups[0].group_id, change.field])
        .sort(),
    ).toEqual(
      [
        [first, 'group_participants_update'],
        [second, 'group_participant_update'],
      ].sort(),
    );
  });

  it('refuses an unknown variant, value or preset with 400 and forgets all on DELETE', async () => {
    const unknown = await call('POST', '/_simulator/variants', { spelling: 'odd' });
    const value = await call('POST', '/_simulator/variants', { errorCodes: 'roman' });
    const preset = await call('POST', '/_simulator/variants', { preset: 'folklore' });
    const template = await call('POST', '/_simulator/variants', { inviteTemplate: { name: 'x' } });
    await call('POST', '/_simulator/variants', { preset: 'samples' });
    const cleared = await call('DELETE', '/_simulator/variants');

    expect([unknown.status, value.status, preset.status, template.status]).toEqual([400, 400, 400, 400]);
    expect(value.body.error.message).toBe('errorCodes must be one of number, string');
    expect(cleared.body.variants).toEqual({
      global: expect.objectContaining({ errorCodes: 'number', initiatedBy: 'group' }),
      phoneNumbers: {},
      groups: {},
    });
  });

  it('answers 404 for a replay that matches nothing, and reports a participant receipt over HTTP', async () => {
    const groupId = await newGroup(PHONE, [MEMBER]);
    const messageId = await sendToGroup(groupId);
    await simulator.flushWebhooks();
    receiver.received.length = 0;

    const missing = await call('POST', '/_simulator/replay', { type: 'group_delete' });
    const receipt = await call('POST', `/_simulator/messages/${messageId}/status`, {
      status: 'read',
      participant: MEMBER,
    });
    const stranger = await call('POST', `/_simulator/messages/${messageId}/status`, {
      status: 'read',
      participant: SECOND,
    });
    const user = await call('GET', `/_simulator/users/${MEMBER}`);
    await simulator.flushWebhooks();

    expect(missing.status).toBe(404);
    expect(receipt.status).toBe(200);
    expect(stranger.status).toBe(409);
    expect(user.body).toEqual({ waId: MEMBER, userId: simulator.userIdOf(MEMBER) });
    expect(statuses()).toEqual([expect.objectContaining({ status: 'read', recipient_participant_id: MEMBER })]);
  });
});

describe('WhatsAppSimulator: the rest of the published shapes (CONTRACT §16, issue 26)', () => {
  it('sends notifications of one number and field that fall due together as one change (itemsPerChange: many)', async () => {
    simulator.setVariants({ itemsPerChange: 'many' });
    const groupId = await newGroup();

    simulator.join(groupId, MEMBER);
    simulator.join(groupId, SECOND);
    await simulator.flushWebhooks();

    expect(changes()).toHaveLength(1);
    expect(groupEvents('group_participants_update').map((event) => event.added_participants)).toEqual([
      [{ wa_id: MEMBER }],
      [{ wa_id: SECOND }],
    ]);
  });

  it('names participants by wa_id and user_id (and parent_user_id), in receipts and inbound senders too', async () => {
    simulator.setVariants({ participantIds: 'parent_user_id', groupReceipts: 'participants', statusContacts: true });
    const groupId = await newGroup();
    const userId = simulator.userIdOf(MEMBER);

    simulator.join(groupId, MEMBER);
    await simulator.flushWebhooks();
    const messageId = await sendToGroup(groupId);
    simulator.receiveMessage(groupId, { from: MEMBER, text: 'hi' });
    await simulator.flushWebhooks();

    expect(groupEvents('group_participants_update')[0].added_participants).toEqual([
      { wa_id: MEMBER, user_id: userId, parent_user_id: expect.stringMatching(/^DE\.P\d+$/), username: 'user0001' },
    ]);
    const delivered = receiver.values('messages').find((value) => value.statuses?.[0]?.status === 'delivered')!;
    expect(delivered.statuses).toEqual([
      expect.objectContaining({
        id: messageId,
        recipient_participant_id: MEMBER,
        recipient_participant_user_id: userId,
      }),
    ]);
    expect(delivered.contacts).toEqual([{ profile: { name: 'Participant 0001' }, wa_id: MEMBER, user_id: userId }]);
    const inbound = receiver.values('messages').find((value) => value.messages)!;
    expect(inbound.messages[0]).toMatchObject({ from: MEMBER, from_user_id: userId });
  });

  it('names an inbound sender only by from_user_id in the user_id variant', async () => {
    simulator.setVariants({ participantIds: 'user_id' });
    const groupId = await newGroup(PHONE, [MEMBER]);

    simulator.receiveMessage(groupId, { from: MEMBER, text: 'hi' });
    await simulator.flushWebhooks();

    const [message] = receiver.values('messages').flatMap((value) => value.messages);
    expect(message).toMatchObject({ from_user_id: simulator.userIdOf(MEMBER) });
    expect(message).not.toHaveProperty('from');
  });

  it('writes ids of digits as JSON numbers, and names a receipt by group_id and recipient_id (OpenAPI Statuses)', async () => {
    simulator.setVariants({ numericIds: true, groupReceipts: 'participants', participantKey: 'recipient_id' });
    const groupId = await newGroup(PHONE, [MEMBER]);

    simulator.requestToJoin(groupId, SECOND);
    const messageId = await sendToGroup(groupId);
    await simulator.flushWebhooks();

    const [request] = groupEvents('group_participants_update');
    expect(request.wa_id).toBe(Number(SECOND));
    // A 16-digit join request id is a number only where JSON holds it exactly.
    const joinRequestId = request.join_request_id as number | string;
    expect(typeof joinRequestId === 'number' || !Number.isSafeInteger(Number(joinRequestId))).toBe(true);
    expect(statuses()).toEqual([
      expect.objectContaining({ id: messageId, status: 'sent', group_id: groupId }),
      expect.objectContaining({ id: messageId, status: 'delivered', group_id: groupId, recipient_id: Number(MEMBER) }),
    ]);
    expect(statuses()[0]).not.toHaveProperty('recipient_id');
  });

  it('leaves timestamps out entirely', async () => {
    simulator.setVariants({ timestamps: 'absent' });
    const groupId = await newGroup();

    simulator.suspend(groupId);
    await simulator.flushWebhooks();

    expect(groupEvents('group_status_update')).toEqual([{ group_id: groupId, type: 'group_suspend' }]);
  });

  it('creates a group with its first members listed as added_participants, and without invite_link', async () => {
    simulator.setVariants({ createInviteLink: false });
    simulator.scriptNextGroup({ outcome: 'success', addedParticipants: [MEMBER, `+${SECOND}`] });

    await call('POST', `/${GRAPH_VERSION}/${PHONE}/groups`, { messaging_product: 'whatsapp', subject: 'Team' });
    await simulator.flushWebhooks();

    const [created] = groupEvents('group_lifecycle_update');
    expect(created).not.toHaveProperty('invite_link');
    expect(created.added_participants).toEqual([
      { input: MEMBER, wa_id: MEMBER },
      { input: SECOND, wa_id: SECOND },
    ]);
    expect(simulator.group(created.group_id)?.participants).toEqual([MEMBER, SECOND]);
  });

  it('carries a request_id on a leave, and sends every group notification under group_lifecycle_update', async () => {
    simulator.setVariants({ leaveRequestId: true, groupField: 'lifecycle' });
    const groupId = await newGroup(PHONE, [MEMBER]);

    simulator.leave(groupId, MEMBER);
    simulator.suspend(groupId);
    await simulator.flushWebhooks();

    expect(changes().map((change) => change.field)).toEqual(['group_lifecycle_update', 'group_lifecycle_update']);
    expect(groupEvents('group_lifecycle_update')).toEqual([
      expect.objectContaining({
        type: 'group_participants_remove',
        request_id: expect.any(String),
        initiated_by: 'participant',
      }),
      expect.objectContaining({ type: 'group_suspend' }),
    ]);
  });

  it('reports a scripted deletion failure in group_delete and keeps the group; reports settings changed by an admin', async () => {
    const groupId = await newGroup();
    const scripted = await call('POST', '/_simulator/next-delete', { outcome: 'fail', code: 131041 });
    const refused = await call('POST', '/_simulator/next-delete', { outcome: 'succeed' });

    const deletion = await call('DELETE', `/${GRAPH_VERSION}/${groupId}`);
    const picture = await call('POST', `/_simulator/groups/${groupId}/settings`, { profilePicture: true });
    const mode = await call('POST', `/_simulator/groups/${groupId}/settings`, { joinApprovalMode: 'auto_approve' });
    const empty = await call('POST', `/_simulator/groups/${groupId}/settings`, {});
    await simulator.flushWebhooks();

    expect([scripted.status, refused.status, deletion.status, picture.status, mode.status, empty.status]).toEqual([
      200, 400, 200, 200, 200, 400,
    ]);
    expect(simulator.group(groupId)).toMatchObject({ joinApprovalMode: 'auto_approve' });
    expect(groupEvents('group_lifecycle_update')).toEqual([
      expect.objectContaining({ type: 'group_delete', errors: [expect.objectContaining({ code: 131041 })] }),
    ]);
    expect(groupEvents('group_settings_update')).toEqual([
      expect.objectContaining({
        profile_picture: { mime_type: 'image/jpeg', sha256: expect.any(String), update_successful: true },
      }),
      expect.objectContaining({ join_approval_mode: 'auto_approve' }),
    ]);
    expect(groupEvents('group_settings_update')[1]).not.toHaveProperty('profile_picture');
  });
});
