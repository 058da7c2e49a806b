import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoWebhookStore } from '#shared/adapters/dynamodb/webhook-store';
import { loadConfig } from '#shared/config/env';
import { attemptDelivery, dispatchMessage, fanOutEvent, sweepDueDeliveries } from '#shared/domain/webhooks/dispatch';
import { createSubscription } from '#shared/domain/webhooks/subscriptions';
import { ulidIds } from '#shared/ports/ids';
import type { WebhookSendOutcome } from '#shared/ports/webhook-transport';
import { useDynamo } from '#test/support/dynamo';

const table = useDynamo();

/** The dispatcher against real DynamoDB (dynalite) with a scripted transport, a fake clock and a recording queue. */
function harness() {
  const time = { now: new Date('2026-11-22T10:00:00.000Z') };
  const outcomes: WebhookSendOutcome[] = [];
  const sent: { url: string; headers: Record<string, string> }[] = [];
  const queued: { body: unknown; delaySeconds?: number }[] = [];
  const deps = {
    config: loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }),
    clock: { now: () => time.now },
    ids: ulidIds(),
    webhooks: new DynamoWebhookStore(table.db, table.tableName),
    secretBox: {
      seal: async (text: string) => `sealed:${text}`,
      open: async (text: string) => text.replace(/^sealed:/, ''),
    },
    webhookTransport: {
      validate: async (url: string) => new URL(url),
      send: async (url: string, request: { headers: Record<string, string> }) => {
        sent.push({ url, headers: request.headers });
        return outcomes.shift() ?? { ok: true, statusCode: 200, latencyMs: 5, gone: false };
      },
    },
    queue: {
      send: async (_: string, body: unknown, options?: { delaySeconds?: number }) =>
        void queued.push({ body, delaySeconds: options?.delaySeconds }),
      retryAfter: async () => undefined,
    },
    random: () => 0.5,
  };
  const advance = (seconds: number) => {
    time.now = new Date(time.now.getTime() + seconds * 1000);
  };
  return { deps, outcomes, sent, queued, advance };
}

const failure = (statusCode: number, retryAfterSeconds?: number): WebhookSendOutcome => ({
  ok: false,
  statusCode,
  retryAfterSeconds,
  latencyMs: 5,
  gone: statusCode === 410,
});

async function subscribedDelivery(h: ReturnType<typeof harness>) {
  const orgId = `org-${Math.random().toString(36).slice(2)}`;
  const subscription = await createSubscription(h.deps, { orgId, url: 'https://receiver.example/hook' });
  await fanOutEvent(h.deps, {
    'detail-type': 'report.completed',
    detail: { event_id: `evt_${orgId}`, type: 'report.completed', organisation_id: orgId, report_id: 'rpt_1' },
  });
  const job = h.queued.shift()!.body as { kind: 'attempt'; orgId: string; webhookId: string; deliveryId: string };
  return { orgId, webhookId: subscription.webhookId, job };
}

describe('webhook dispatcher', () => {
  let h: ReturnType<typeof harness>;
  beforeEach(() => {
    h = harness();
  });

  it('waits at least as long as a 429 Retry-After asks (J-3)', async () => {
    const { orgId, webhookId, job } = await subscribedDelivery(h);
    h.outcomes.push(failure(429, 120));

    await attemptDelivery(h.deps, job);

    const delivery = await h.deps.webhooks.getDelivery(orgId, webhookId, job.deliveryId);
    expect(delivery).toMatchObject({ status: 'retrying', lastStatusCode: 429, attempts: 1 });
    expect(Date.parse(delivery!.nextAttemptAt!) - h.deps.clock.now().getTime()).toBeGreaterThanOrEqual(120_000);
    expect(h.queued[0]!.delaySeconds).toBeGreaterThanOrEqual(120);
  });

  it('keeps waits beyond 15 minutes in the due index, which the sweeper queues when they are due', async () => {
    const { orgId, webhookId, job } = await subscribedDelivery(h);
    h.outcomes.push(failure(500), failure(500), failure(500));

    await attemptDelivery(h.deps, job);
    h.advance(6);
    await attemptDelivery(h.deps, job);
    h.advance(301);
    await attemptDelivery(h.deps, job);
    const queuedBeforeDue = h.queued.length;
    const early = await sweepDueDeliveries(h.deps);
    h.advance(1800 * 1.1);
    const due = await sweepDueDeliveries(h.deps);

    expect(queuedBeforeDue).toBe(2);
    expect(early).toBe(0);
    expect(due).toBeGreaterThanOrEqual(1);
    expect(h.queued.at(-1)!.body).toEqual(job);
    expect(await h.deps.webhooks.getDelivery(orgId, webhookId, job.deliveryId)).toMatchObject({
      status: 'retrying',
      attempts: 3,
    });
  });

  it('fails a delivery after the last scheduled attempt, and it can be redelivered (J-4)', async () => {
    const { orgId, webhookId, job } = await subscribedDelivery(h);
    const schedule = h.deps.config.webhooks.retryScheduleSeconds;
    for (let attempt = 0; attempt <= schedule.length; attempt++) h.outcomes.push(failure(500));

    for (let attempt = 0; attempt <= schedule.length; attempt++) {
      await attemptDelivery(h.deps, job);
      h.advance((schedule[attempt] ?? 0) * 1.2);
    }

    const delivery = await h.deps.webhooks.getDelivery(orgId, webhookId, job.deliveryId);
    expect(delivery).toMatchObject({ status: 'failed', attempts: schedule.length + 1 });
    expect(new Set(h.sent.map((request) => request.headers['webhook-id']))).toEqual(new Set([`evt_${orgId}`]));
  });

  it('disables a subscription that has failed for five days without a success (FAILING)', async () => {
    const { orgId, webhookId, job } = await subscribedDelivery(h);
    h.outcomes.push(failure(503));
    await attemptDelivery(h.deps, job);
    h.advance(5 * 24 * 3600);
    await fanOutEvent(h.deps, {
      'detail-type': 'report.completed',
      detail: { event_id: `evt_${orgId}_2`, type: 'report.completed', organisation_id: orgId, report_id: 'rpt_2' },
    });
    const second = h.queued.at(-1)!.body as typeof job;
    h.outcomes.push(failure(503));

    await attemptDelivery(h.deps, second);

    expect(await h.deps.webhooks.getSubscription(orgId, webhookId)).toMatchObject({
      status: 'disabled',
      disabledReason: 'FAILING',
    });
  });

  it('delivers each (subscription, event) once however often the event is fanned out (G-2)', async () => {
    const { orgId, job } = await subscribedDelivery(h);
    await attemptDelivery(h.deps, job);

    await fanOutEvent(h.deps, {
      'detail-type': 'report.completed',
      detail: { event_id: `evt_${orgId}`, type: 'report.completed', organisation_id: orgId, report_id: 'rpt_1' },
    });
    await attemptDelivery(h.deps, job);

    expect(h.sent).toHaveLength(1);
  });

  it("forwards a bus event as its organisation's fan-out job before anything else, then fans the job out (CONTRACT §18, §22)", async () => {
    const orgId = `org-${Math.random().toString(36).slice(2)}`;
    const subscription = await createSubscription(h.deps, { orgId, url: 'https://receiver.example/hook' });
    const event = {
      version: '0',
      source: 'wp-crm',
      'detail-type': 'report.completed',
      detail: { event_id: `evt_${orgId}`, type: 'report.completed', organisation_id: orgId, report_id: 'rpt_1' },
    };

    await dispatchMessage(h.deps, event);

    // One job, in the organisation's group (SqsJobQueue sends `orgId` as MessageGroupId), and no delivery yet.
    expect(h.queued.map((entry) => entry.body)).toEqual([
      { kind: 'fan-out', orgId, event: { 'detail-type': 'report.completed', detail: event.detail } },
    ]);
    expect(await h.deps.webhooks.listDeliveries(orgId, subscription.webhookId, { limit: 10 })).toMatchObject({
      items: [],
    });

    await dispatchMessage(h.deps, h.queued.shift()!.body as never);

    expect(h.queued.map((entry) => (entry.body as { kind: string }).kind)).toEqual(['attempt']);
  });

  it('drops a bus event without an organisation instead of forwarding it to no one', async () => {
    await dispatchMessage(h.deps, { 'detail-type': 'report.completed', detail: { event_id: 'evt_orphan' } });

    expect(h.queued).toEqual([]);
  });
});
