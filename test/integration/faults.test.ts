import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import * as v from 'valibot';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { QUEUES } from '#infra/aws/functions';
import { config } from '#shared/config/core';
import { deps } from '#shared/config/deps';
import { GROUP_REQUESTS_QUEUE } from '#shared/domain/groups/create-group';
import { GROUP_REQUEST_ON_HOLD } from '#shared/domain/groups/process-group-request';
import { createOrg } from '#shared/domain/orgs/administer';
import { logger } from '#shared/observability/logger';
import { createGroup, getGroupCreationStatus } from '#shared/routes/groups';
import { requestReport } from '#shared/routes/reports';
import { RESPONSE_SCHEMAS } from '#shared/schemas/responses';
import { createdGroup, pollStatus, requestGroup, untilFinal } from '#test/support/groups';
import { eventually, useLocalStack } from '#test/support/local-stack';
import { networkSettled } from '#test/support/meta';
import { useReceiver } from '#test/support/receiver';
import { signedInboundGroupText } from '#test/support/stack-harness';

const dataDir = mkdtempSync(join(tmpdir(), 'wpcrm-faults-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const OUTBOUND = QUEUES.find((queue) => queue.name === 'outbound-messages')!;

/** The route's documented response schema, with unknown top-level properties refused. */
/** The schema as a strict object; of a variant (the report view, one shape per type), the shape of `body`'s type. */
function exactly(schema: unknown, body?: unknown): v.GenericSchema {
  const variant = schema as { type: string; key: string; options: v.ObjectSchema<v.ObjectEntries, undefined>[] };
  if (variant.type === 'variant') {
    const wanted = (body as Record<string, unknown>)[variant.key];
    const option = variant.options.find(
      (candidate) => (candidate.entries[variant.key] as v.LiteralSchema<string, undefined>).literal === wanted,
    );
    if (!option) throw new Error(`no shape for ${variant.key} ${String(wanted)}`);
    return exactly(option);
  }
  return v.strictObject((schema as v.ObjectSchema<v.ObjectEntries, undefined>).entries);
}

/** Problem bodies of outages: generic, with the correlation id, and nothing of the infrastructure behind. */
async function expectHygienicOutage(response: Response) {
  const text = await response.text();
  expect(response.status).toBeGreaterThanOrEqual(500);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(JSON.parse(text)).toMatchObject({ instance: response.headers.get('x-request-id') });
  expect(text).not.toMatch(/arn:|ECONNREFUSED|127\.0\.0\.1|dynamo|graph|\bat \S+\(|\.ts:\d|Exception/i);
}

describe('faults and exposure on the local stack', () => {
  const api = useLocalStack({
    WPCRM_DATA_DIR: dataDir,
    GROUP_CREATE_RATE_LIMIT: '1000/60',
    NETWORK_RETRY_BASE_SECONDS: '1',
    WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1,1',
  });
  const receiver = useReceiver();
  const simulator = () => api.stack.simulator!;
  afterEach(() => {
    simulator().options.latencyMs = 0;
    vi.restoreAllMocks();
  });

  /** A created group chat the simulator can deliver messages to (one member besides the business). */
  async function groupWithMember(subject: string) {
    const group = await createdGroup(api, await api.token('CRM_ADMIN'), subject);
    simulator().join(group.groupId, `49151${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`);
    await simulator().flushWebhooks();
    return group;
  }

  const send = async (token: string, chatId: string, text: string) => {
    const response = await api.call('/messaging/send-message', { method: 'POST', token, json: { chatId, text } });
    expect(response.status).toBe(202);
    return ((await response.json()) as { messageId: string }).messageId;
  };

  const postsOf = (subject: string) =>
    simulator().requestLog.filter(
      (entry) => entry.path.endsWith('/groups') && (entry.body as { subject?: string }).subject === subject,
    );

  const messageStatuses = async (chatId: string, ids: string[]) =>
    Object.fromEntries(
      await Promise.all(
        ids.map(async (id) => [id, (await deps().chats.getMessage(api.orgId, chatId, id))?.status] as const),
      ),
    );

  const unsent = async (chatId: string, ids: string[]) =>
    Object.entries(await messageStatuses(chatId, ids)).filter(
      ([, status]) => !['sent', 'delivered', 'read'].includes(status ?? ''),
    );

  it('delivers group.created once, with one webhook-id across retries and only this organisation (D-7)', async () => {
    const admin = await api.token('CRM_ADMIN');
    const subscribed = await api.call(`/webhooks/${api.orgId}`, {
      method: 'POST',
      token: admin,
      json: { url: `${receiver.url}/groups-done`, events: ['group.created'] },
    });
    const { secret } = (await subscribed.json()) as { secret: string };
    receiver.scripts.set('/groups-done', [500]);

    const { requestId, chatId } = await createdGroup(api, admin, 'Announced');
    const requests = await eventually(
      () => {
        const received = receiver
          .requestsTo('/groups-done')
          .filter((request) => (JSON.parse(request.body) as { request_id?: string }).request_id === requestId);
        expect(received).toHaveLength(2);
        return received;
      },
      { timeoutMs: 15_000 },
    );

    expect(subscribed.status).toBe(201);
    expect(new Set(requests.map((request) => request.headers['webhook-id'])).size).toBe(1);
    const payload = new Webhook(secret).verify(requests[1]!.body, requests[1]!.headers as Record<string, string>);
    expect(payload).toMatchObject({
      type: 'group.created',
      organisation_id: api.orgId,
      request_id: requestId,
      chat_id: chatId,
    });
  });

  it('keeps Graph calls in flight within the outbound consumer cap for 120 queued messages (H-7)', async () => {
    const { chatId } = await groupWithMember('Busy chat');
    const token = await api.token('CRM_AGENT');
    simulator().options.latencyMs = 1_000;

    const ids: string[] = [];
    for (let chunk = 0; chunk < 12; chunk += 1) {
      ids.push(
        ...(await Promise.all(Array.from({ length: 10 }, (_, n) => send(token, chatId, `burst ${chunk}.${n}`)))),
      );
    }
    // 120 sends of a second each through 10 × 10 slots, beside the notifications they cause: it asserts the cap,
    // not the speed, so it waits as long as a loaded machine needs. One organisation holds at most a quarter of the
    // sender's pool (CONTRACT §18, shared/queue/org-share.ts: 2 of its 10 invocations) and its other jobs go back to
    // the queue until a place frees, so its 120 seconds of Meta take about 50 s here (12 s before shares).
    await eventually(async () => expect(await unsent(chatId, ids)).toEqual([]), { timeoutMs: 120_000 });

    expect(simulator().state().counts.graphMaxInFlight).toBeLessThanOrEqual(
      OUTBOUND.maxConcurrency * OUTBOUND.batchSize,
    );
  }, 150_000);

  it('delays only the sends to the group Meta rate-limits with 131056; the other group proceeds (H-2)', async () => {
    const x = await groupWithMember('Pair X');
    const y = await groupWithMember('Pair Y');
    const token = await api.token('CRM_AGENT');
    simulator().addFault({ method: 'POST', path: '/messages$', to: x.groupId, mode: 'code131056', times: 1 });

    const toX = await send(token, x.chatId, 'to X');
    const toY = await send(token, y.chatId, 'to Y');
    await eventually(async () => {
      expect(await unsent(x.chatId, [toX])).toEqual([]);
      expect(await unsent(y.chatId, [toY])).toEqual([]);
    });

    const sends = simulator().requestLog.filter((entry) => entry.method === 'POST' && entry.path.endsWith('/messages'));
    const toGroup = (groupId: string) => sends.filter((entry) => (entry.body as { to?: string }).to === groupId);
    expect(toGroup(x.groupId).map((entry) => entry.fault ?? entry.status)).toEqual(['code131056', 200]);
    expect(toGroup(y.groupId).map((entry) => entry.status)).toEqual([200]);
    expect(sends.indexOf(toGroup(y.groupId)[0]!)).toBeLessThan(sends.indexOf(toGroup(x.groupId)[1]!));
  });

  it('fails a group request on the non-retryable Graph code 100 after one POST, nothing to the DLQ (H-3)', async () => {
    const token = await api.token('CRM_ADMIN');
    simulator().scriptNextGroup({ outcome: 'reject', code: 100 });
    const subject = 'Refused 100';

    const { requestId } = (await (await requestGroup(api, token, { subject })).json()) as { requestId: string };
    const final = await untilFinal(api, token, requestId);

    expect(final).toMatchObject({ status: 'failed', error: { code: '100' } });
    expect(postsOf(subject)).toHaveLength(1);
    expect(api.stack.queues.get(`${GROUP_REQUESTS_QUEUE}-dlq`)!.size).toBe(0);
  });

  it.each([190, 368])(
    'holds a group request with an alert on the Graph code %i: one POST, no retry, nothing to the DLQ (H-3)',
    async (code) => {
      const alerts = vi.spyOn(logger, 'error');
      const token = await api.token('CRM_ADMIN');
      simulator().scriptNextGroup({ outcome: 'reject', code });
      const subject = `Refused ${code}`;

      const { requestId } = (await (await requestGroup(api, token, { subject })).json()) as { requestId: string };
      const held = await eventually(async () => {
        const request = await deps().groups.get(api.orgId, requestId);
        expect(request?.onHold).toBeDefined();
        return request!;
      });
      // Time for a retry loop to show itself, if there were one.
      await new Promise((resolve) => setTimeout(resolve, 1500));

      expect(held.onHold).toMatchObject({ code: String(code) });
      expect(await pollStatus(api, token, requestId)).toMatchObject({ status: 'creating' });
      expect(postsOf(subject)).toHaveLength(1);
      expect(
        api.stack.queues
          .get(GROUP_REQUESTS_QUEUE)!
          .peek()
          .filter((body) => body.includes(requestId)),
      ).toEqual([]);
      expect(api.stack.queues.get(`${GROUP_REQUESTS_QUEUE}-dlq`)!.size).toBe(0);
      expect(alerts).toHaveBeenCalledWith(
        expect.any(String),
        expect.objectContaining({ alert: GROUP_REQUEST_ON_HOLD, requestId, networkCode: code }),
      );
    },
  );

  it('refuses extra org, status, requestId, createdBy and roles on group and report requests (B-5)', async () => {
    const token = await api.token('CRM_ADMIN');
    const extras = {
      org: 'other',
      status: 'created',
      requestId: 'grq_mine',
      createdBy: 'cli_admin',
      roles: ['ACCOUNT_OWNER'],
    };

    for (const [name, value] of Object.entries(extras)) {
      const group = await requestGroup(api, token, { [name]: value });
      const report = await api.call(`/reports/${api.orgId}`, {
        method: 'POST',
        token,
        json: { reportType: 'CHAT', [name]: value },
      });
      for (const response of [group, report]) {
        expect(response.status, name).toBe(400);
        const body = (await response.json()) as { code: string; errors: { pointer: string }[] };
        expect(body.code).toBe('VALIDATION_FAILED');
        expect(body.errors.map((error) => error.pointer)).toContain(`/${name}`);
      }
    }
  });

  it('answers exactly the documented fields, and stores the request under the token organisation (B-5)', async () => {
    const token = await api.token('CRM_ADMIN');
    const { orgId: otherOrg } = await createOrg(deps(), { name: 'Neighbour' });

    const group = await requestGroup(api, token, { subject: 'Exposure' });
    const accepted = await group.json();
    const status = await pollStatus(api, token, (accepted as { requestId: string }).requestId);
    const report = await api.call(`/reports/${api.orgId}`, { method: 'POST', token, json: { reportType: 'GOAL' } });
    const reportBody = await report.json();

    expect(v.safeParse(exactly(RESPONSE_SCHEMAS[createGroup.responses[202].schema!]), accepted).issues).toBeUndefined();
    expect(
      v.safeParse(exactly(RESPONSE_SCHEMAS[getGroupCreationStatus.responses[200].schema!]), status).issues,
    ).toBeUndefined();
    expect(report.status).toBe(202);
    expect(
      v.safeParse(exactly(RESPONSE_SCHEMAS[requestReport.responses[202].schema!], reportBody), reportBody).issues,
    ).toBeUndefined();
    const stored = await deps().groups.get(api.orgId, status.requestId);
    expect(stored?.orgId).toBe(api.orgId);
    for (const body of [accepted, status, reportBody]) {
      expect(JSON.stringify(body)).not.toContain(otherOrg);
      expect(JSON.stringify(body)).not.toMatch(/secret|accessToken|whsec_/i);
    }
  });

  it('answers a Graph 500 behind the invite link with a generic 503 and a correlation id (C-4)', async () => {
    const { chatId } = await createdGroup(api, await api.token('CRM_ADMIN'), 'Flaky link');
    simulator().addFault({ method: 'GET', path: 'invite_link', mode: 'http500' });

    const response = await api.call(`/groups/${api.orgId}/${chatId}/invite-link`, {
      token: await api.token('CRM_ADMIN'),
    });

    expect(response.status).toBe(503);
    await expectHygienicOutage(response);
  });

  it('answers 5xx without internals while DynamoDB is down; a notification is kept meanwhile and applied once after, CONTRACT §21 (C-4, I-7)', async () => {
    const { groupId, chatId } = await groupWithMember('Outage');
    const token = await api.token('CRM_AGENT');
    const notification = signedInboundGroupText(
      { groupId, wamid: `wamid.outage-${groupId}`, text: 'während des Ausfalls' },
      config().whatsapp.appSecret,
    );
    const deliver = () =>
      api.call('/network/whatsapp/webhook', { method: 'POST', body: notification.body, headers: notification.headers });
    const kept: Response[] = [];
    const down: Response[] = [];

    await api.stack.restartDynamo(async () => {
      // The internet-facing webhook holds no data: it keeps the notification without the table, and answers 200.
      kept.push(await deliver());
      down.push(await api.call(`/chats/${api.orgId}/${chatId}`, { token }));
    });
    const replayed = await deliver();

    for (const response of down) await expectHygienicOutage(response);
    expect([kept[0]!.status, replayed.status]).toEqual([200, 200]);
    // The worker retries what it could not apply while the table was away (backoff from 10 s), and applies it once.
    await networkSettled(api, 60_000);
    const page = (await (await api.call(`/chats/${api.orgId}/${chatId}/messages`, { token })).json()) as {
      messages: { text: string }[];
    };
    expect(page.messages.filter((message) => message.text === 'während des Ausfalls')).toHaveLength(1);
  }, 90_000);
});
