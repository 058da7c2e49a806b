import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GRAPH_VERSION, WhatsAppSimulator } from '#infra/local/simulator/server';
import { signMetaBody, startWebhookReceiver, type WebhookReceiver } from '#test/support/whatsapp';

const APP_SECRET = 'test-app-secret';
const PHONE = '100000000000001';

let simulator: WhatsAppSimulator;
let receiver: WebhookReceiver;
let baseUrl: string;

// biome-ignore lint/suspicious/noExplicitAny: answers are asserted field by field
type Answer = { status: number; body: any };

async function call(method: string, path: string, body?: unknown, timeoutMs = 2_000): Promise<Answer> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: 'Bearer token', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: response.status, body: await response.json() };
}

const createGroup = (timeoutMs?: number) =>
  call(
    'POST',
    `/${GRAPH_VERSION}/${PHONE}/groups`,
    { messaging_product: 'whatsapp', subject: 'VIP', join_approval_mode: 'approval_required' },
    timeoutMs,
  );

async function newGroupId(): Promise<string> {
  const created = await createGroup();
  await call('POST', '/_simulator/flush');
  return simulator.groups(PHONE).find((group) => group.requestId === created.body.request_id)!.groupId;
}

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  simulator = new WhatsAppSimulator({
    appSecret: APP_SECRET,
    webhookUrl: receiver.url,
    webhookDelayMs: 5,
    webhookRetryDelayMs: 10,
  });
  baseUrl = `http://127.0.0.1:${await simulator.listen(0)}`;
});

afterEach(async () => {
  await call('POST', '/_simulator/flush');
  await call('POST', '/_simulator/reset');
  receiver.received.length = 0;
  receiver.status = 200;
});

afterAll(async () => {
  await simulator.close();
  await receiver.close();
});

describe('WhatsAppSimulator control API', () => {
  it('queues create outcomes in order, then falls back to success', async () => {
    await call('POST', '/_simulator/next-group', { outcome: 'fail', code: 131211, message: 'Too many groups' });
    const queued = await call('POST', '/_simulator/next-group', { outcome: 'silent' });

    for (let index = 0; index < 3; index++) await createGroup();
    await call('POST', '/_simulator/flush');

    expect(queued.body.scriptedGroups).toEqual([
      { outcome: 'fail', code: 131211, message: 'Too many groups' },
      { outcome: 'silent' },
    ]);
    // Notifications travel independently, as Meta's do: they may arrive in any order.
    const events = receiver.values('group_lifecycle_update').flatMap((value) => value.groups);
    expect(events).toHaveLength(2);
    expect(events.find((event) => event.errors)?.errors).toEqual([
      {
        code: 131211,
        title: 'Group create limit reached',
        message: 'Too many groups',
        error_data: { details: 'Too many groups' },
      },
    ]);
    expect(events.find((event) => !event.errors)?.group_id).toEqual(expect.any(String));
  });

  it('refuses an unknown outcome or fault mode with 400', async () => {
    const outcome = await call('POST', '/_simulator/next-group', { outcome: 'maybe' });
    const fault = await call('POST', '/_simulator/faults', { mode: 'explode' });
    const regex = await call('POST', '/_simulator/faults', { mode: 'hang', path: '(' });

    expect([outcome.status, fault.status, regex.status]).toEqual([400, 400, 400]);
  });

  it('answers scripted transport faults for matching calls only, `times` times', async () => {
    await call('POST', '/_simulator/faults', { method: 'POST', path: '/groups$', mode: 'http500', times: 2 });
    await call('POST', '/_simulator/faults', { path: '/groups$', mode: 'code131208', retryAfterSeconds: 3 });

    const list = await call('GET', `/${GRAPH_VERSION}/${PHONE}/groups`);
    const first = await createGroup();
    const second = await createGroup();
    const response = await fetch(`${baseUrl}/${GRAPH_VERSION}/${PHONE}/groups`, {
      method: 'POST',
      headers: { authorization: 'Bearer token' },
      body: JSON.stringify({ messaging_product: 'whatsapp', subject: 'VIP' }),
    });
    const fourth = await createGroup();

    expect(list.status).toBe(429);
    expect(list.body.error.code).toBe(131208);
    expect([first.status, second.status]).toEqual([500, 500]);
    expect(first.body.error).toMatchObject({ code: 2, is_transient: true });
    expect(response.status).toBe(200);
    expect(fourth.status).toBe(200);
    expect(simulator.groups(PHONE)).toHaveLength(2);
    const log = (await call('GET', '/_simulator/requests')).body.requests;
    expect(log.map((entry: { fault?: string; status: number }) => [entry.fault ?? null, entry.status])).toEqual([
      ['code131208', 429],
      ['http500', 500],
      ['http500', 500],
      [null, 200],
      [null, 200],
    ]);
  });

  it('sends Retry-After with http429 when asked', async () => {
    await call('POST', '/_simulator/faults', { mode: 'http429', retryAfterSeconds: 4 });

    const response = await fetch(`${baseUrl}/${GRAPH_VERSION}/${PHONE}/groups`, {
      headers: { authorization: 'Bearer token' },
    });

    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('4');
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(130429);
  });

  it('creates the group but never answers on timeout-after-commit; does nothing on hang', async () => {
    await call('POST', '/_simulator/faults', { path: '/groups$', mode: 'timeout-after-commit' });
    await call('POST', '/_simulator/faults', { path: '/groups$', mode: 'hang' });

    const committed = await createGroup(300).catch((error: Error) => error.name);
    const hung = await createGroup(300).catch((error: Error) => error.name);
    await call('POST', '/_simulator/flush');

    expect([committed, hung]).toEqual(['TimeoutError', 'TimeoutError']);
    expect(simulator.groups(PHONE)).toHaveLength(1);
    expect(receiver.values('group_lifecycle_update')).toHaveLength(1);
    expect(simulator.requestLog.map((entry) => [entry.fault, entry.status])).toEqual([
      ['timeout-after-commit', undefined],
      ['hang', undefined],
    ]);
  });

  it('resets the connection after committing on reset-after-commit', async () => {
    await call('POST', '/_simulator/faults', { mode: 'reset-after-commit' });

    const outcome = await createGroup().catch((error: Error) => error.message);

    expect(outcome).toBe('fetch failed');
    expect(simulator.groups(PHONE)).toHaveLength(1);
  });

  it('replays every following notification `times` extra times with identical bytes', async () => {
    await call('POST', '/_simulator/duplicates', { times: 2 });

    await createGroup();
    await call('POST', '/_simulator/flush');

    expect(receiver.received).toHaveLength(3);
    expect(new Set(receiver.received.map((delivery) => delivery.rawBody)).size).toBe(1);
    expect(new Set(receiver.received.map((delivery) => delivery.headers['x-hub-signature-256'])).size).toBe(1);
  });

  it('retries a failed delivery with backoff, then gives up after 3 attempts', async () => {
    receiver.status = 500;

    await createGroup();
    await call('POST', '/_simulator/flush');
    const state = await call('GET', '/_simulator/state');

    expect(receiver.received).toHaveLength(3);
    expect(simulator.webhookLog).toMatchObject([{ state: 'failed', attempts: 3, lastStatus: 500 }]);
    expect(state.body.counts.webhooks).toEqual({ scheduled: 0, delivered: 0, failed: 1, dropped: 0 });
  });

  it('drives join requests, joins, messages and leaves through /_simulator/groups/:groupId', async () => {
    const groupId = await newGroupId();
    receiver.received.length = 0;

    const request = await call('POST', `/_simulator/groups/${groupId}/join-requests`, { waId: '+4917698765432' });
    const revoked = await call('DELETE', `/_simulator/groups/${groupId}/join-requests/${request.body.joinRequestId}`);
    const joined = await call('POST', `/_simulator/groups/${groupId}/join`, { waId: '4915112345678' });
    const message = await call('POST', `/_simulator/groups/${groupId}/messages`, {
      from: '4915112345678',
      text: 'Hello',
    });
    const left = await call('POST', `/_simulator/groups/${groupId}/leave`, { waId: '4915112345678' });
    const stranger = await call('POST', `/_simulator/groups/${groupId}/messages`, { from: '4915112345678', text: 'x' });
    const unknown = await call('POST', '/_simulator/groups/nope/join', { waId: '4915112345678' });
    await call('POST', '/_simulator/flush');

    expect(request.body.joinRequestId).toMatch(/^\d+$/);
    expect(revoked.status).toBe(200);
    expect(joined.body.participants).toEqual(['4915112345678']);
    expect(message.body.messageId).toMatch(/^wamid\./);
    expect(left.body.participants).toEqual([]);
    expect(stranger.status).toBe(409);
    expect(unknown).toEqual({ status: 404, body: { error: { message: 'no group nope', code: 131041 } } });
    // Notifications travel independently, as Meta's do: they may arrive in any order.
    const groupEvents = receiver.values('group_participants_update').flatMap((value) => value.groups);
    expect(groupEvents.map((event) => [event.type, event.initiated_by]).sort()).toEqual(
      [
        ['group_join_request_created', undefined],
        ['group_join_request_revoked', undefined],
        ['group_participants_add', undefined],
        ['group_participants_remove', 'participant'],
      ].sort(),
    );
    expect(groupEvents.find((event) => event.type === 'group_participants_remove')?.removed_participants).toEqual([
      { wa_id: '4915112345678' },
    ]);
    expect(receiver.values('messages')[0]?.messages[0]).toMatchObject({
      id: message.body.messageId,
      group_id: groupId,
    });
  });

  it('moves a sent message to read or failed on request', async () => {
    const groupId = await newGroupId();
    simulator.join(groupId, '4915112345678');
    const sent = await call('POST', `/${GRAPH_VERSION}/${PHONE}/messages`, {
      messaging_product: 'whatsapp',
      recipient_type: 'group',
      to: groupId,
      type: 'text',
      text: { body: 'Hi' },
    });
    const id = sent.body.messages[0].id;
    await call('POST', '/_simulator/flush');

    await call('POST', `/_simulator/messages/${encodeURIComponent(id)}/status`, { status: 'read' });
    await call('POST', `/_simulator/messages/${encodeURIComponent(id)}/status`, { status: 'failed', code: 131026 });
    await call('POST', '/_simulator/flush');

    const statuses = receiver.values('messages').flatMap((value) => value.statuses ?? []);
    expect(statuses.map((status) => status.status)).toEqual(['sent', 'delivered', 'read', 'failed']);
    expect(statuses[3].errors).toEqual([expect.objectContaining({ code: 131026 })]);
    expect(simulator.messages[0]?.status).toBe('failed');
  });

  it('reports state and forgets everything on reset', async () => {
    await newGroupId();
    await call('POST', '/_simulator/next-group', { outcome: 'fail' });

    const before = await call('GET', '/_simulator/state');
    await call('POST', '/_simulator/reset');
    const after = await call('GET', '/_simulator/state');

    expect(before.body.counts).toMatchObject({ groups: 1, requests: 1, webhooks: { delivered: 1 } });
    expect(before.body.scriptedGroups).toEqual([{ outcome: 'fail' }]);
    expect(after.body).toMatchObject({ groups: [], messages: [], scriptedGroups: [], faults: [], duplicates: 0 });
    expect(after.body.counts).toMatchObject({ groups: 0, requests: 0 });
  });

  it('signs with the app secret so that signMetaBody reproduces the header', async () => {
    await createGroup();
    await call('POST', '/_simulator/flush');

    const [delivery] = receiver.received;
    expect(delivery?.headers['x-hub-signature-256']).toBe(signMetaBody(delivery!.rawBody, APP_SECRET));
  });

  it('counts concurrent Graph calls held open by latencyMs', async () => {
    simulator.options.latencyMs = 50;

    const answers = await Promise.all(
      Array.from({ length: 5 }, () => call('GET', `/${GRAPH_VERSION}/${PHONE}/groups`)),
    );
    simulator.options.latencyMs = 0;
    const state = await call('GET', '/_simulator/state');

    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(state.body.counts).toMatchObject({ graphInFlight: 0, graphMaxInFlight: 5 });
  });

  it('answers 404 for an unknown control route and keeps control calls out of the request log', async () => {
    const response = await call('GET', '/_simulator/nothing');

    expect(response.status).toBe(404);
    expect(simulator.requestLog).toEqual([]);
  });

  it('scripts the next settings update and suspends or clears a group over HTTP', async () => {
    const groupId = await newGroupId();

    const scripted = await call('POST', '/_simulator/next-settings', { failFields: ['description'] });
    const badScript = await call('POST', '/_simulator/next-settings', { failFields: ['name'] });
    const suspended = await call('POST', `/_simulator/groups/${groupId}/suspend`);
    const twice = await call('POST', `/_simulator/groups/${groupId}/suspend`);
    const cleared = await call('POST', `/_simulator/groups/${groupId}/unsuspend`);

    expect(scripted.body).toEqual({ scriptedSettings: [{ failFields: ['description'] }] });
    expect(badScript.status).toBe(400);
    expect(suspended.body).toMatchObject({ groupId, suspended: true });
    expect(twice.status).toBe(409);
    expect(cleared.body).toMatchObject({ groupId, suspended: false });
  });
});
