import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoWebhookStore } from '#shared/adapters/dynamodb/webhook-store';
import { loadConfig } from '#shared/config/env';
import { type AttemptJob, attemptDelivery, type DispatchPool, fanOutEvent } from '#shared/domain/webhooks/dispatch';
import { SlotHints } from '#shared/domain/webhooks/lanes';
import {
  createSubscription,
  WEBHOOK_DELIVERIES_QUEUE,
  WEBHOOK_SLOW_RECEIVERS_QUEUE,
} from '#shared/domain/webhooks/subscriptions';
import { ulidIds } from '#shared/ports/ids';
import type { WebhookSendOutcome } from '#shared/ports/webhook-transport';
import { OrgShareExceeded } from '#shared/queue/org-share';
import { useDynamo } from '#test/support/dynamo';

const table = useDynamo();

/**
 * CONTRACT §18, webhook targets that cannot hold the pool: the dispatcher against real DynamoDB (dynalite), with a
 * transport whose answers the test releases, a fake clock and a recording queue.
 */
function harness() {
  const time = { now: new Date('2026-11-22T10:00:00.000Z') };
  const sent: { url: string; timeoutMs?: number; answer: (outcome: WebhookSendOutcome) => void }[] = [];
  const queued: { body: AttemptJob; delaySeconds?: number; queue?: string }[] = [];
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
      send: (url: string, _request: unknown, options?: { timeoutMs?: number }) =>
        new Promise<WebhookSendOutcome>((answer) => sent.push({ url, timeoutMs: options?.timeoutMs, answer })),
    },
    queue: {
      send: async (queue: string, body: unknown, options?: { delaySeconds?: number }) =>
        void queued.push({
          body: body as AttemptJob,
          delaySeconds: options?.delaySeconds,
          ...(queue === WEBHOOK_DELIVERIES_QUEUE ? {} : { queue }),
        }),
      retryAfter: async () => undefined,
    },
    random: () => 0.5,
  };
  const advance = (seconds: number) => {
    time.now = new Date(time.now.getTime() + seconds * 1000);
  };
  return { deps, sent, queued, advance };
}

const ok: WebhookSendOutcome = { ok: true, statusCode: 200, latencyMs: 5, gone: false };
/** The slow receivers' own pool (issue 35), with no share to take. */
const SLOW_POOL: DispatchPool = { queue: WEBHOOK_SLOW_RECEIVERS_QUEUE, admit: async () => undefined };
const timedOut: WebhookSendOutcome = { ok: false, latencyMs: 10_000, gone: false, error: 'timeout' };
const throttled = (retryAfterSeconds: number): WebhookSendOutcome => ({
  ok: false,
  statusCode: 429,
  retryAfterSeconds,
  latencyMs: 5,
  gone: false,
});

/** Waits until the transport holds `count` requests (attempts run concurrently with the test). */
async function requestsInFlight(h: ReturnType<typeof harness>, count: number) {
  for (let round = 0; round < 200 && h.sent.length < count; round++) await new Promise((r) => setTimeout(r, 10));
  expect(h.sent).toHaveLength(count);
}

/** A subscription with `events` deliveries, their attempt jobs taken off the recording queue. */
async function subscriptionWithDeliveries(h: ReturnType<typeof harness>, events: number) {
  const orgId = `org-${Math.random().toString(36).slice(2)}`;
  const { webhookId } = await createSubscription(h.deps, { orgId, url: 'https://receiver.example/hook' });
  for (let index = 0; index < events; index++) {
    await fanOutEvent(h.deps, {
      'detail-type': 'message.status',
      detail: { event_id: `evt_${orgId}_${index}`, type: 'message.status', organisation_id: orgId },
    });
  }
  const jobs = h.queued.splice(0).map((entry) => entry.body);
  return { orgId, webhookId, jobs };
}

describe('webhook targets cannot hold the dispatcher (CONTRACT §18)', () => {
  let h: ReturnType<typeof harness>;
  beforeEach(() => {
    h = harness();
  });

  it('has at most 2 attempts in flight per subscription; a third delivery waits without spending an attempt', async () => {
    const { orgId, webhookId, jobs } = await subscriptionWithDeliveries(h, 3);
    const first = attemptDelivery(h.deps, jobs[0]!);
    const second = attemptDelivery(h.deps, jobs[1]!);
    await requestsInFlight(h, 2);

    await attemptDelivery(h.deps, jobs[2]!);

    expect(h.sent).toHaveLength(2);
    const waiting = await h.deps.webhooks.getDelivery(orgId, webhookId, jobs[2]!.deliveryId);
    expect(waiting).toMatchObject({ status: 'pending', attempts: 0 });
    expect(h.queued).toEqual([{ body: jobs[2], delaySeconds: expect.any(Number) }]);
    expect(h.queued[0]!.delaySeconds).toBeGreaterThanOrEqual(1);

    for (const request of h.sent) request.answer(ok);
    await Promise.all([first, second]);
    h.advance(h.queued[0]!.delaySeconds!);
    const third = attemptDelivery(h.deps, jobs[2]!);
    await requestsInFlight(h, 3);
    h.sent[2]!.answer(ok);
    await third;
    expect(await h.deps.webhooks.getDelivery(orgId, webhookId, jobs[2]!.deliveryId)).toMatchObject({
      status: 'succeeded',
      attempts: 1,
    });
  });

  it('puts deliveries waiting for a busy subscription back without reading the table, until a slot is freed', async () => {
    const hinted = { ...h.deps, slotHints: new SlotHints() };
    const { orgId, webhookId, jobs } = await subscriptionWithDeliveries(h, 5);
    const first = attemptDelivery(hinted, jobs[0]!);
    const second = attemptDelivery(hinted, jobs[1]!);
    await requestsInFlight(h, 2);
    let reads = 0;
    const webhooks = h.deps.webhooks;
    const counting = new Proxy(webhooks, {
      get(target, property) {
        const value = Reflect.get(target, property, target) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (property === 'getDelivery' || property === 'getSubscription') reads += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const looking = { ...hinted, webhooks: counting };

    await attemptDelivery(looking, jobs[2]!);
    await attemptDelivery(looking, jobs[3]!);
    await attemptDelivery(looking, jobs[4]!);

    // Both slots taken by this container's own attempts: the three wait, and none of them read anything.
    expect(reads).toBe(0);
    expect(h.queued.map((entry) => entry.body)).toEqual([jobs[2], jobs[3], jobs[4]]);
    expect(h.queued.every((entry) => (entry.delaySeconds ?? 0) >= 1)).toBe(true);
    expect(h.sent).toHaveLength(2);

    // A slot freed by this container ends the hint: the next look reads and attempts.
    h.sent[0]!.answer(ok);
    await first;
    const third = attemptDelivery(looking, jobs[2]!);
    await requestsInFlight(h, 3);
    expect(reads).toBe(2);
    for (const request of h.sent.slice(1)) request.answer(ok);
    await Promise.all([second, third]);
    expect(await h.deps.webhooks.getDelivery(orgId, webhookId, jobs[2]!.deliveryId)).toMatchObject({
      status: 'succeeded',
      attempts: 1,
    });
  });

  it('moves a subscription whose last 5 attempts timed out to the slow lane: once a minute, 3 s, until a success', async () => {
    const { orgId, webhookId, jobs } = await subscriptionWithDeliveries(h, 3);
    const [job, other, third] = jobs as [AttemptJob, AttemptJob, AttemptJob];
    // Its first timeout made it a slow receiver: its attempts run in the slow receivers' pool (issue 35).
    for (let attempt = 0; attempt < 5; attempt++) {
      const running = attemptDelivery(h.deps, job, SLOW_POOL);
      await requestsInFlight(h, attempt + 1);
      h.sent[attempt]!.answer(timedOut);
      await running;
      if (attempt === 4) break;
      const { nextAttemptAt } = (await h.deps.webhooks.getDelivery(orgId, webhookId, job.deliveryId))!;
      h.advance((Date.parse(nextAttemptAt!) - h.deps.clock.now().getTime()) / 1000);
    }
    expect(h.sent.map((request) => request.timeoutMs)).toEqual([10_000, 10_000, 10_000, 10_000, 10_000]);
    expect(await h.deps.webhooks.getSubscription(orgId, webhookId)).toMatchObject({ recentFailures: 5 });

    // Within the minute after the fifth failure: the other delivery waits for the lane, no request is made.
    h.queued.length = 0;
    await attemptDelivery(h.deps, other, SLOW_POOL);
    expect(h.sent).toHaveLength(5);
    expect(h.queued[0]!.delaySeconds).toBeGreaterThanOrEqual(30);
    expect(await h.deps.webhooks.getDelivery(orgId, webhookId, other.deliveryId)).toMatchObject({
      status: 'pending',
      attempts: 0,
    });

    // When it is due again (a minute or more on): one attempt, with a 3 s timeout; another in the same minute waits.
    h.advance(h.queued[0]!.delaySeconds!);
    const slow = attemptDelivery(h.deps, other, SLOW_POOL);
    await requestsInFlight(h, 6);
    expect(h.sent[5]!.timeoutMs).toBe(3_000);
    h.queued.length = 0;
    await attemptDelivery(h.deps, third, SLOW_POOL);
    expect(h.sent).toHaveLength(6);
    expect(h.queued).toHaveLength(1);

    // It succeeds: the subscription leaves the slow lane.
    h.sent[5]!.answer(ok);
    await slow;
    expect(await h.deps.webhooks.getSubscription(orgId, webhookId)).toMatchObject({ recentFailures: 0 });
    h.advance(h.queued[0]!.delaySeconds!);
    const normal = attemptDelivery(h.deps, third, SLOW_POOL);
    await requestsInFlight(h, 7);
    expect(h.sent[6]!.timeoutMs).toBe(10_000);
    h.sent[6]!.answer(ok);
    await normal;
    expect(await h.deps.webhooks.getDelivery(orgId, webhookId, third.deliveryId)).toMatchObject({
      status: 'succeeded',
    });
  });

  it('frees the slot of an attempt that died once its lease ends', async () => {
    const { orgId, webhookId, jobs } = await subscriptionWithDeliveries(h, 3);
    // Two attempts that never come back (their function died): leases only.
    void attemptDelivery(h.deps, jobs[0]!);
    void attemptDelivery(h.deps, jobs[1]!);
    await requestsInFlight(h, 2);
    await attemptDelivery(h.deps, jobs[2]!);
    expect(h.sent).toHaveLength(2);

    h.advance(31);
    const third = attemptDelivery(h.deps, jobs[2]!);
    await requestsInFlight(h, 3);
    h.sent[2]!.answer(ok);
    await third;
    expect(await h.deps.webhooks.getDelivery(orgId, webhookId, jobs[2]!.deliveryId)).toMatchObject({
      status: 'succeeded',
    });
  });

  it('honours Retry-After up to 10 h; a longer or huge one (99999999999999999999) falls back to the schedule, never a throw', async () => {
    const { orgId, webhookId, jobs } = await subscriptionWithDeliveries(h, 3);
    const answers = [throttled(36_000), throttled(36_001), throttled(Number('99999999999999999999'))];
    const delays: number[] = [];
    for (const [index, job] of jobs.entries()) {
      h.queued.length = 0;
      const running = attemptDelivery(h.deps, job);
      await requestsInFlight(h, index + 1);
      h.sent[index]!.answer(answers[index]!);
      await running;
      const delivery = await h.deps.webhooks.getDelivery(orgId, webhookId, job.deliveryId);
      expect(delivery).toMatchObject({ status: 'retrying', attempts: 1 });
      delays.push((Date.parse(delivery!.nextAttemptAt!) - h.deps.clock.now().getTime()) / 1000);
    }

    // 10 h is honoured (kept in the due index); beyond it the schedule's first step (5 s) applies.
    expect(delays).toEqual([36_000, 5, 5]);
    expect(h.queued.map((entry) => entry.delaySeconds)).toEqual([5]);
  });
  it("moves a receiver that timed out out of the healthy receivers' pool at once, and back after an attempt under 3 s (issue 35)", async () => {
    const { orgId, webhookId, jobs } = await subscriptionWithDeliveries(h, 3);
    const [first, second, third] = jobs as [AttemptJob, AttemptJob, AttemptJob];
    // Fan-out sent every first attempt to the healthy receivers' pool.
    const running = attemptDelivery(h.deps, first);
    await requestsInFlight(h, 1);
    h.sent[0]!.answer(timedOut);
    await running;

    // One timeout: the retry, and every job of the subscription that reaches the healthy pool, go to the slow pool
    // without an attempt spent there.
    expect(await h.deps.webhooks.getSubscription(orgId, webhookId)).toMatchObject({
      slowReceiver: true,
      recentFailures: 1,
    });
    expect(h.queued).toEqual([{ body: first, delaySeconds: expect.any(Number), queue: WEBHOOK_SLOW_RECEIVERS_QUEUE }]);
    h.queued.length = 0;
    await attemptDelivery(h.deps, second);
    expect(h.sent).toHaveLength(1);
    expect(h.queued).toEqual([{ body: second, delaySeconds: 0, queue: WEBHOOK_SLOW_RECEIVERS_QUEUE }]);
    expect(await h.deps.webhooks.getDelivery(orgId, webhookId, second.deliveryId)).toMatchObject({ attempts: 0 });

    // In the slow pool every rule of §18 still holds: 10 s until the slow lane, and a success in time counts.
    h.queued.length = 0;
    const slowAttempt = attemptDelivery(h.deps, second, SLOW_POOL);
    await requestsInFlight(h, 2);
    expect(h.sent[1]!.timeoutMs).toBe(10_000);
    h.sent[1]!.answer({ ...ok, latencyMs: 3_500 });
    await slowAttempt;
    // A success that took 3.5 s keeps it in the slow pool; one under 3 s brings it back.
    expect(await h.deps.webhooks.getSubscription(orgId, webhookId)).toMatchObject({
      slowReceiver: true,
      recentFailures: 0,
    });
    const quick = attemptDelivery(h.deps, third, SLOW_POOL);
    await requestsInFlight(h, 3);
    h.sent[2]!.answer(ok);
    await quick;
    const healthy = await h.deps.webhooks.getSubscription(orgId, webhookId);
    expect(healthy?.slowReceiver).toBeUndefined();
    expect(h.queued).toEqual([]);
  });

  it("takes the organisation's place in the pool before an attempt, and leaves the delivery untouched when its share is full", async () => {
    const { orgId, webhookId, jobs } = await subscriptionWithDeliveries(h, 1);
    const refused: DispatchPool = {
      queue: WEBHOOK_DELIVERIES_QUEUE,
      admit: async () => {
        throw new OrgShareExceeded(orgId, WEBHOOK_DELIVERIES_QUEUE, 2);
      },
    };

    await expect(attemptDelivery(h.deps, jobs[0]!, refused)).rejects.toBeInstanceOf(OrgShareExceeded);

    // No request, no slot taken, no attempt spent: the consumer puts the job back and it runs later as it was.
    expect(h.sent).toHaveLength(0);
    expect((await h.deps.webhooks.getSubscription(orgId, webhookId))?.attemptLeases ?? []).toEqual([]);
    expect(await h.deps.webhooks.getDelivery(orgId, webhookId, jobs[0]!.deliveryId)).toMatchObject({
      status: 'pending',
      attempts: 0,
    });
    const admitted: string[] = [];
    const later = attemptDelivery(h.deps, jobs[0]!, {
      queue: WEBHOOK_DELIVERIES_QUEUE,
      admit: async () => void admitted.push(orgId),
    });
    await requestsInFlight(h, 1);
    h.sent[0]!.answer(ok);
    await later;
    expect(admitted).toEqual([orgId]);
  });
});
