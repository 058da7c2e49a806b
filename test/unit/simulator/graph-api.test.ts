import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GRAPH_VERSION, WhatsAppSimulator } from '#infra/local/simulator/server';
import { startWebhookReceiver, type WebhookReceiver } from '#test/support/whatsapp';

const APP_SECRET = 'test-app-secret';
const PHONE = '100000000000001';

let simulator: WhatsAppSimulator;
let receiver: WebhookReceiver;
let graphUrl: string;

// biome-ignore lint/suspicious/noExplicitAny: answers are asserted field by field
type Answer = { status: number; body: any };

async function graph(method: string, path: string, body?: unknown, token = 'token'): Promise<Answer> {
  const response = await fetch(`${graphUrl}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

async function createGroup(extra: Record<string, unknown> = {}) {
  const created = await graph('POST', `/${PHONE}/groups`, {
    messaging_product: 'whatsapp',
    subject: 'VIP customers',
    join_approval_mode: 'approval_required',
    ...extra,
  });
  await simulator.flushWebhooks();
  const group = simulator.groups(PHONE).find((item) => item.requestId === created.body.request_id);
  return { created, group: group! };
}

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  simulator = new WhatsAppSimulator({ appSecret: APP_SECRET, webhookUrl: receiver.url, webhookDelayMs: 5 });
  graphUrl = `http://127.0.0.1:${await simulator.listen(0)}/${GRAPH_VERSION}`;
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

describe('WhatsAppSimulator group creation', () => {
  it('answers 200 with a request id, then posts a group_create notification signed over the raw bytes', async () => {
    const { created, group } = await createGroup({ subject: '  Sommer – VIP 🎉  ', description: 'Early access' });

    expect(created).toEqual({ status: 200, body: { messaging_product: 'whatsapp', request_id: expect.any(String) } });
    expect(receiver.received).toHaveLength(1);
    const [delivery] = receiver.received;
    const expected = createHmac('sha256', APP_SECRET).update(Buffer.from(delivery!.rawBody, 'utf8')).digest();
    const header = String(delivery?.headers['x-hub-signature-256']);
    expect(header).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(timingSafeEqual(Buffer.from(header.slice(7), 'hex'), expected)).toBe(true);
    expect(delivery?.headers['content-type']).toBe('application/json');
    expect(delivery?.rawBody).toContain('Sommer \\u2013 VIP \\ud83c\\udf89');
    expect(delivery?.body).toEqual({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: expect.any(String),
          changes: [
            {
              field: 'group_lifecycle_update',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: expect.any(String), phone_number_id: PHONE },
                groups: [
                  {
                    timestamp: expect.stringMatching(/^\d+$/),
                    group_id: group.groupId,
                    type: 'group_create',
                    request_id: created.body.request_id,
                    subject: 'Sommer – VIP 🎉',
                    invite_link: expect.stringMatching(/^https:\/\/chat\.whatsapp\.com\/\w{22}$/),
                    join_approval_mode: 'approval_required',
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    expect(group.groupId).toMatch(/^Y2FwaV9ncm91cDo[A-Za-z0-9]+$/);
  });

  it('notifies a scripted failure with errors[] and creates no group', async () => {
    simulator.scriptNextGroup({ outcome: 'fail', code: 131215 });

    const { created } = await createGroup({ description: 'Early access' });

    expect(created.status).toBe(200);
    expect(simulator.groups(PHONE)).toEqual([]);
    expect(receiver.values('group_lifecycle_update')[0]?.groups).toEqual([
      {
        timestamp: expect.any(String),
        type: 'group_create',
        subject: 'VIP customers',
        description: 'Early access',
        request_id: created.body.request_id,
        errors: [
          {
            code: 131215,
            title: 'Number not eligible for Groups APIs',
            message: 'Number not eligible for Groups APIs',
            error_data: { details: 'Number not eligible for Groups APIs' },
          },
        ],
      },
    ]);
  });

  it('sends nothing for a silent outcome, and lists the group only when groupCreated is set', async () => {
    simulator.scriptNextGroup({ outcome: 'silent' });
    simulator.scriptNextGroup({ outcome: 'silent', groupCreated: true });

    const first = await createGroup();
    const second = await createGroup();

    expect(first.created.status).toBe(200);
    expect(second.created.status).toBe(200);
    expect(receiver.received).toEqual([]);
    expect(simulator.groups(PHONE).map((group) => group.requestId)).toEqual([second.created.body.request_id]);
  });

  it('holds the notification of a delayed outcome for delayMs', async () => {
    simulator.scriptNextGroup({ outcome: 'delay', delayMs: 150 });

    const started = Date.now();
    await createGroup();

    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(receiver.values('group_lifecycle_update')).toHaveLength(1);
  });

  it('rejects synchronously with a scripted reject outcome', async () => {
    simulator.scriptNextGroup({ outcome: 'reject', code: 131214 });

    const { created } = await createGroup();

    expect(created.status).toBe(400);
    expect(created.body.error).toMatchObject({ code: 131214, type: 'OAuthException', fbtrace_id: expect.any(String) });
  });

  it.each([
    [{ subject: '   ' }, 'subject is required'],
    [{ subject: 'x'.repeat(129) }, 'subject must be at most 128 characters'],
    [{ description: 'x'.repeat(2049) }, 'description must be a string of at most 2048 characters'],
    [{ join_approval_mode: 'invite_only' }, 'join_approval_mode must be approval_required or auto_approve'],
    [{ messaging_product: undefined }, 'The parameter messaging_product is required.'],
  ])('validates the create body like Meta: %j → 100', async (extra, details) => {
    const { created } = await createGroup(extra);

    expect(created.status).toBe(400);
    expect(created.body.error).toMatchObject({ code: 100, error_data: { details } });
  });

  it('accepts a subject of 128 code points after trimming and defaults join_approval_mode to auto_approve', async () => {
    const { created, group } = await createGroup({ subject: ` ${'😀'.repeat(128)} `, join_approval_mode: undefined });

    expect(created.status).toBe(200);
    expect(group.joinApprovalMode).toBe('auto_approve');
  });

  it('answers 401 with code 190 without a bearer token', async () => {
    const response = await graph('GET', `/${PHONE}/groups`, undefined, '');

    expect(response.status).toBe(401);
    expect(response.body.error).toMatchObject({ code: 190, type: 'OAuthException' });
  });
});

describe('WhatsAppSimulator groups', () => {
  it('pages the active groups with cursors and a next link until the last page', async () => {
    for (let index = 0; index < 5; index++) await createGroup({ subject: `Group ${index}` });

    const first = await graph('GET', `/${PHONE}/groups?limit=2`);
    const second = await graph('GET', `/${PHONE}/groups?limit=2&after=${first.body.paging.cursors.after}`);
    const last = await graph('GET', `/${PHONE}/groups?limit=2&after=${second.body.paging.cursors.after}`);
    const bad = await graph('GET', `/${PHONE}/groups?after=bm9wZQ`);
    const tooMany = await graph('GET', `/${PHONE}/groups?limit=1025`);

    expect(first.body.data.groups.map((group: { subject: string }) => group.subject)).toEqual(['Group 0', 'Group 1']);
    expect(first.body.data.groups[0]).toEqual({
      id: expect.any(String),
      subject: 'Group 0',
      created_at: expect.any(Number),
    });
    expect(first.body.paging.next).toContain(`${graphUrl}/${PHONE}/groups?limit=2&after=`);
    expect(second.body.data.groups).toHaveLength(2);
    expect(last.body.data.groups.map((group: { subject: string }) => group.subject)).toEqual(['Group 4']);
    expect(last.body.paging.next).toBeUndefined();
    expect(bad.body.error.code).toBe(131059);
    expect(tooMany.body.error.code).toBe(100);
  });

  it('gets and resets the invite link; the old link is gone', async () => {
    const { group } = await createGroup();

    const got = await graph('GET', `/${group.groupId}/invite_link`);
    const reset = await graph('POST', `/${group.groupId}/invite_link`, { messaging_product: 'whatsapp' });

    expect(got.body).toEqual({ messaging_product: 'whatsapp', invite_link: group.inviteLink });
    expect(reset.body.invite_link).toMatch(/^https:\/\/chat\.whatsapp\.com\//);
    expect(reset.body.invite_link).not.toBe(group.inviteLink);
    expect(simulator.group(group.groupId)?.inviteLink).toBe(reset.body.invite_link);
  });

  it('answers 131041 for an unknown group', async () => {
    const response = await graph('GET', '/Y2FwaV9ncm91cDo5OTk/invite_link');

    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe(131041);
  });

  it('approves and rejects join requests with failed_join_requests for unknown ids', async () => {
    const { group } = await createGroup();
    const first = simulator.requestToJoin(group.groupId, '+4915112345678');
    const second = simulator.requestToJoin(group.groupId, '4917698765432');

    const approved = await graph('POST', `/${group.groupId}/join_requests`, {
      messaging_product: 'whatsapp',
      join_requests: [first, 'missing'],
    });
    const rejected = await graph('DELETE', `/${group.groupId}/join_requests`, {
      messaging_product: 'whatsapp',
      join_requests: [second, first],
    });
    await simulator.flushWebhooks();

    const unknown = {
      code: 131213,
      title: 'Group join request does not exist',
      message: 'Group join request does not exist',
      error_data: { details: 'Group join request does not exist' },
    };
    expect(approved.body).toEqual({
      messaging_product: 'whatsapp',
      approved_join_requests: [first],
      failed_join_requests: [{ join_request_id: 'missing', errors: [unknown] }],
    });
    expect(rejected.body).toEqual({
      messaging_product: 'whatsapp',
      rejected_join_requests: [second],
      failed_join_requests: [{ join_request_id: first, errors: [unknown] }],
    });
    expect(simulator.group(group.groupId)?.participants).toEqual(['4915112345678']);
    // Notifications travel independently, as Meta's do: they may arrive in any order.
    const events = receiver.values('group_participants_update').flatMap((value) => value.groups);
    expect(events.map((event) => event.type).sort()).toEqual([
      'group_join_request_created',
      'group_join_request_created',
      'group_participants_add',
    ]);
    expect(events.find((event) => event.join_request_id === first)).toMatchObject({
      group_id: group.groupId,
      type: 'group_join_request_created',
      wa_id: '4915112345678',
    });
    expect(events.find((event) => event.type === 'group_participants_add')).toMatchObject({
      reason: 'invite_link',
      added_participants: [{ input: '4915112345678', wa_id: '4915112345678' }],
    });
  });

  it('removes participants and notifies removed and failed ones', async () => {
    const { group } = await createGroup();
    simulator.join(group.groupId, '4915112345678');

    const response = await graph('DELETE', `/${group.groupId}/participants`, {
      messaging_product: 'whatsapp',
      participants: [{ user: '+4915112345678' }, { user: '4917000000000' }],
    });
    await simulator.flushWebhooks();

    expect(response.status).toBe(200);
    expect(simulator.group(group.groupId)?.participants).toEqual([]);
    expect(() => simulator.join(group.groupId, '4915112345678')).toThrow(/cannot rejoin/);
    const removal = receiver
      .values('group_participants_update')
      .flatMap((value) => value.groups)
      .find((event) => event.type === 'group_participants_remove');
    expect(removal).toMatchObject({
      type: 'group_participants_remove',
      request_id: expect.any(String),
      removed_participants: [{ input: '+4915112345678' }],
      failed_participants: [{ input: '4917000000000', errors: [{ code: 131212 }] }],
      errors: [{ code: 131201 }],
      initiated_by: 'business',
    });
  });

  it('refuses more than 8 participants per removal and a 9th participant', async () => {
    const { group } = await createGroup();
    for (let index = 0; index < 8; index++) simulator.join(group.groupId, `49151000000${index}`);

    const response = await graph('DELETE', `/${group.groupId}/participants`, {
      messaging_product: 'whatsapp',
      participants: Array.from({ length: 9 }, (_, index) => ({ user: `49151000000${index}` })),
    });

    expect(response.body.error.code).toBe(131204);
    expect(() => simulator.join(group.groupId, '4915100000099')).toThrow(/full/);
  });

  it('deletes a group: success, a group_delete notification, then 131041', async () => {
    const { group } = await createGroup();

    const deleted = await graph('DELETE', `/${group.groupId}`);
    await simulator.flushWebhooks();
    const again = await graph('DELETE', `/${group.groupId}`);

    expect(deleted.body).toEqual({ success: true });
    const lifecycle = receiver.values('group_lifecycle_update').flatMap((value) => value.groups);
    expect(lifecycle.find((event) => event.type === 'group_delete')).toMatchObject({
      type: 'group_delete',
      group_id: group.groupId,
      request_id: expect.any(String),
    });
    expect(again.body.error.code).toBe(131041);
  });
});

describe('WhatsAppSimulator group settings and status', () => {
  it('updates subject and description, and reports each setting in group_settings_update', async () => {
    const { group } = await createGroup();

    const updated = await graph('POST', `/${group.groupId}`, {
      messaging_product: 'whatsapp',
      subject: '  Gold customers ',
      description: 'Only the best',
    });
    await simulator.flushWebhooks();

    expect(updated).toEqual({ status: 200, body: { success: true } });
    expect(simulator.group(group.groupId)).toMatchObject({ subject: 'Gold customers', description: 'Only the best' });
    const [event] = receiver.values('group_settings_update').flatMap((value) => value.groups);
    expect(event).toMatchObject({
      type: 'group_settings_update',
      group_id: group.groupId,
      request_id: expect.any(String),
      group_subject: { text: 'Gold customers', update_successful: true },
      group_description: { text: 'Only the best', update_successful: true },
    });
  });

  it('keeps a setting scripted to fail and reports its error; refuses an empty change or a blank subject', async () => {
    const { group } = await createGroup();
    simulator.scriptNextSettings({ failFields: ['subject'], code: 100, message: 'Subject refused' });

    await graph('POST', `/${group.groupId}`, { messaging_product: 'whatsapp', subject: 'Nope', description: 'Yes' });
    await simulator.flushWebhooks();
    const empty = await graph('POST', `/${group.groupId}`, { messaging_product: 'whatsapp' });
    const blank = await graph('POST', `/${group.groupId}`, { messaging_product: 'whatsapp', subject: '  ' });

    expect(simulator.group(group.groupId)).toMatchObject({ subject: 'VIP customers', description: 'Yes' });
    const [event] = receiver.values('group_settings_update').flatMap((value) => value.groups);
    expect(event.group_subject).toMatchObject({
      text: 'Nope',
      update_successful: false,
      errors: [{ code: 100, message: 'Subject refused' }],
    });
    expect(event.group_description).toMatchObject({ update_successful: true });
    expect([empty.status, blank.status]).toEqual([400, 400]);
  });

  it('suspends a group and clears the suspension with group_status_update; a suspended group refuses 131207', async () => {
    const { group } = await createGroup();
    simulator.join(group.groupId, '4915112345678');

    simulator.suspend(group.groupId);
    const send = await graph('POST', `/${PHONE}/messages`, {
      messaging_product: 'whatsapp',
      recipient_type: 'group',
      to: group.groupId,
      type: 'text',
      text: { body: 'hi' },
    });
    const update = await graph('POST', `/${group.groupId}`, { messaging_product: 'whatsapp', subject: 'x' });
    const info = await graph('GET', `/${group.groupId}?fields=suspended`);
    simulator.clearSuspension(group.groupId);
    await simulator.flushWebhooks();

    expect(send.body.error.code).toBe(131207);
    expect(update.body.error.code).toBe(131207);
    expect(info.body.suspended).toBe(true);
    expect(simulator.group(group.groupId)?.suspended).toBe(false);
    const types = receiver
      .values('group_status_update')
      .flatMap((value) => value.groups ?? [])
      .map((event) => event.type);
    expect(types).toEqual(['group_suspend', 'group_suspend_cleared']);
  });
});

describe('WhatsAppSimulator messages', () => {
  it('refuses to message a group that holds only the business with 131020', async () => {
    const { group } = await createGroup();

    const response = await graph('POST', `/${PHONE}/messages`, {
      messaging_product: 'whatsapp',
      recipient_type: 'group',
      to: group.groupId,
      type: 'text',
      text: { body: 'Hello?' },
    });

    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 131020, message: '(#131020) Bad Group' });
  });

  it('sends to a group with members and notifies sent then delivered with recipient_type group', async () => {
    const { group } = await createGroup();
    simulator.join(group.groupId, '4915112345678');

    const response = await graph('POST', `/${PHONE}/messages`, {
      messaging_product: 'whatsapp',
      recipient_type: 'group',
      to: group.groupId,
      type: 'text',
      text: { body: 'Welcome!' },
    });
    await simulator.flushWebhooks();

    const id = response.body.messages[0].id;
    expect(id).toMatch(/^wamid\./);
    const statuses = receiver.values('messages').flatMap((value) => value.statuses ?? []);
    expect(
      statuses.map((status) => [status.id, status.status, status.recipient_id, status.recipient_type]).sort(),
    ).toEqual([
      [id, 'delivered', group.groupId, 'group'],
      [id, 'sent', group.groupId, 'group'],
    ]);
    expect(simulator.messages).toMatchObject([{ messageId: id, text: 'Welcome!', status: 'delivered' }]);
  });

  it('sends the invite-link template only for a group of the same number', async () => {
    const { group } = await createGroup();
    const template = (groupId: string) => ({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '+4915112345678',
      type: 'template',
      template: {
        name: 'group_invite_link',
        language: { code: 'en' },
        components: [{ type: 'body', parameters: [{ type: 'group_id', group_id: groupId }] }],
      },
    });

    const sent = await graph('POST', `/${PHONE}/messages`, template(group.groupId));
    const unknown = await graph('POST', `/${PHONE}/messages`, template('Y2FwaV9ncm91cDo5OTk'));

    expect(sent.body).toEqual({
      messaging_product: 'whatsapp',
      contacts: [{ input: '+4915112345678', wa_id: '4915112345678' }],
      messages: [{ id: expect.stringMatching(/^wamid\./), message_status: 'accepted' }],
    });
    expect(unknown.body.error.code).toBe(131041);
  });

  it('posts inbound group messages from participants with group_id', async () => {
    const { group } = await createGroup();
    simulator.join(group.groupId, '4915112345678');

    const id = simulator.receiveMessage(group.groupId, { from: '4915112345678', text: 'Hi all', name: 'Jürgen' });
    await simulator.flushWebhooks();

    expect(receiver.values('messages')[0]).toMatchObject({
      contacts: [{ profile: { name: 'Jürgen' }, wa_id: '4915112345678' }],
      messages: [{ from: '4915112345678', id, type: 'text', text: { body: 'Hi all' }, group_id: group.groupId }],
    });
    expect(() => simulator.receiveMessage(group.groupId, { from: '4917000000000', text: 'x' })).toThrow(/participant/);
  });
});
