import { forOrganisation } from '#shared/adapters/aws/tenant-scope';
import type { Config } from '#shared/config/env';
import type { EventType } from '#shared/events/catalog';
import { webhookBodyOf } from '#shared/events/webhook-body';
import { logger } from '#shared/observability/logger';
import { countBusiness } from '#shared/observability/metrics';
import type { Clock } from '#shared/ports/clock';
import type { IdGenerator } from '#shared/ports/ids';
import type { JobQueue } from '#shared/ports/job-queue';
import type { SecretBox } from '#shared/ports/secret-box';
import { SubscriptionContendedError, type WebhookStore } from '#shared/ports/webhook-store';
import type { WebhookTransport } from '#shared/ports/webhook-transport';
import {
  ATTEMPT_TIMEOUT_MS,
  attemptSlot,
  holdsLease,
  honouredRetryAfter,
  inSlowLane,
  SLOW_LANE_TIMEOUT_MS,
  SLOW_RECEIVER_MS,
  type SlotHints,
  settleLease,
  takeLease,
} from './lanes.ts';
import { webhookHeaders } from './signature.ts';
import {
  type Delivery,
  DISABLE_AFTER_FAILING_SECONDS,
  type Subscription,
  secretContext,
  subscribesTo,
} from './subscription.ts';
import { WEBHOOK_DELIVERIES_QUEUE, WEBHOOK_SLOW_RECEIVERS_QUEUE } from './subscriptions.ts';

export interface DispatchDeps {
  config: Pick<Config, 'webhooks'>;
  clock: Clock;
  ids: IdGenerator;
  webhooks: WebhookStore;
  secretBox: SecretBox;
  webhookTransport: Pick<WebhookTransport, 'send'>;
  queue: JobQueue;
  random?: () => number;
  /** This container's hints of subscriptions without a free slot (lanes.ts); none → every look reads the table. */
  slotHints?: SlotHints;
}

/** The longest wait an SQS message delay covers; longer waits go through the due-time index. */
const MAX_QUEUE_DELAY_SECONDS = 900;
/** Keeps the last attempts of a delivery (status code, latency, error, the start of the answer). */
const ATTEMPT_LOG_SIZE = 20;
/** A job that arrives this much before its attempt is due is early (a duplicate), and skipped. */
const EARLY_TOLERANCE_MS = 2_000;

/**
 * The dispatcher pool a job runs in: its queue, and the organisation's place in the invocation, which an attempt takes
 * just before it waits on the receiver (shared/queue/org-share.ts; it throws when the organisation holds its share,
 * and the job goes back to its queue).
 */
export interface DispatchPool {
  queue: string;
  admit(): Promise<void>;
  /** Refuses at once (throws) when this container refused the organisation a moment ago: nothing is read for it. */
  checkShare?(): void;
}

/** The shared pool with no share to take (tests and callers outside a queue consumer). */
export const UNSHARED_POOL: DispatchPool = { queue: WEBHOOK_DELIVERIES_QUEUE, admit: async () => undefined };

/** Where a subscription's attempts run: slow receivers in their own pool (lanes.ts SLOW_RECEIVER_MS). */
export const poolOf = (subscription: Pick<Subscription, 'slowReceiver'>) =>
  subscription.slowReceiver ? WEBHOOK_SLOW_RECEIVERS_QUEUE : WEBHOOK_DELIVERIES_QUEUE;

export interface AttemptJob {
  kind: 'attempt';
  orgId: string;
  webhookId: string;
  deliveryId: string;
}

/** The part of an EventBridge event the fan-out reads: the detail is the webhook body plus `event_id`. */
export interface BusEvent {
  'detail-type': string;
  detail: { event_id?: string; organisation_id?: string; type?: string; [field: string]: unknown };
}

/**
 * A bus event forwarded by the dispatcher to its own queue in its organisation's message group. EventBridge's SQS
 * target cannot give each event its organisation's MessageGroupId (SqsParameters takes one fixed group; AWS documents
 * no dynamic path for it), so an event arrives without one, and the dispatcher's first step is this forward: the
 * fan-out, which reads the subscriptions and writes a delivery each, then runs as the organisation's work in the fair
 * queue, like the attempts (CONTRACT §18, §22).
 */
export interface FanOutJob {
  kind: 'fan-out';
  orgId: string;
  event: BusEvent;
}

/** Forwards a bus event as its organisation's fan-out job; an event without an organisation is not delivered. */
export async function forwardEvent(deps: Pick<DispatchDeps, 'queue'>, event: BusEvent): Promise<void> {
  const orgId = event.detail.organisation_id;
  if (typeof orgId !== 'string' || orgId === '') {
    logger.warn('event without organisation_id not delivered', { type: event['detail-type'] });
    return;
  }
  const job: FanOutJob = {
    kind: 'fan-out',
    orgId,
    event: { 'detail-type': event['detail-type'], detail: event.detail },
  };
  await deps.queue.send(WEBHOOK_DELIVERIES_QUEUE, job);
}

/**
 * Fans an event out to its organisation's active subscriptions for that type (never another organisation's).
 * Each (subscription, event) becomes one delivery however often the event arrives, with the body bytes fixed now.
 */
export async function fanOutEvent(deps: DispatchDeps, event: BusEvent): Promise<void> {
  const { eventId, organisationId: orgId, body: text } = webhookBodyOf(event.detail);
  const type = event['detail-type'] as EventType;
  if (!eventId || !orgId) {
    logger.warn('event without event_id or organisation_id not delivered', { type });
    return;
  }
  const subscriptions = (await deps.webhooks.allSubscriptions(orgId)).filter(
    (subscription) => subscription.status === 'active' && subscribesTo(subscription, type),
  );
  const now = deps.clock.now().toISOString();
  for (const subscription of subscriptions) {
    const { delivery } = await deps.webhooks.createDelivery({
      deliveryId: deps.ids.next('dlv'),
      webhookId: subscription.webhookId,
      orgId,
      eventId,
      type,
      body: text,
      status: 'pending',
      attempts: 0,
      cycleAttempts: 0,
      attemptLog: [],
      nextAttemptAt: now,
      createdAt: now,
      updatedAt: now,
    });
    if (delivery.status === 'pending' && delivery.attempts === 0)
      await enqueue(deps, delivery, 0, poolOf(subscription));
  }
}

/**
 * One delivery attempt (Standard Webhooks): a fresh webhook-timestamp and signature (both secrets during a
 * rotation) over the stored body; 2xx within the timeout is success; 410 disables the subscription; anything else is
 * retried on the schedule (±10 % jitter, a longer Retry-After of at most 10 h honoured) until it runs out, then
 * `failed`. Short waits are SQS message delays, long ones the due-time index that the sweeper reads.
 * 0. A job for a subscription whose slots this container saw taken goes back to the queue unread (SlotHints).
 * 1. Skip a delivery that is final or not yet due (a duplicate job); fail it when its subscription is gone.
 * 2. A slow receiver's job that reached the healthy receivers' pool moves to the slow receivers' pool (issue 35).
 * 3. Take the organisation's place in this invocation (no more than its share of the pool: else the job goes back to
 *    its queue), then one of the subscription's attempt slots (a conditional write; CONTRACT §18: 2 in flight, the
 *    slow lane's one a minute). Without a slot the delivery waits for one: its attempt is not spent, nothing is lost.
 * 4. Claim the attempt on the delivery (a duplicate job that read the same version loses), send it within 10 s
 *    (3 s in the slow lane), record it and schedule the retry (in the slow receivers' pool when it took 3 s or more).
 * 5. Free the slot and record the outcome on the subscription: a success leaves the slow lane, the fifth failure in
 *    a row enters it, five days of failures disable the subscription; the attempt's time makes the receiver slow or
 *    healthy.
 */
export async function attemptDelivery(
  deps: DispatchDeps,
  job: AttemptJob,
  pool: DispatchPool = UNSHARED_POOL,
): Promise<void> {
  const hintedBusyUntil = deps.slotHints?.busyUntil(job.webhookId, deps.clock.now().getTime());
  if (hintedBusyUntil !== undefined) {
    // This container saw the subscription's slots taken until then: wait again without reading anything.
    await enqueueJob(deps, job, spreadDelaySeconds(deps, new Date(hintedBusyUntil)), pool.queue);
    return;
  }
  // Its organisation was at its share of this pool a moment ago: back to the queue unread.
  pool.checkShare?.();
  const delivery = await deps.webhooks.getDelivery(job.orgId, job.webhookId, job.deliveryId);
  if (!delivery || delivery.status === 'succeeded' || delivery.status === 'failed') {
    logger.debug('attempt job for a final or missing delivery', {
      deliveryId: job.deliveryId,
      status: delivery?.status,
    });
    return;
  }
  const now = deps.clock.now();
  if (delivery.nextAttemptAt && Date.parse(delivery.nextAttemptAt) - now.getTime() > EARLY_TOLERANCE_MS) {
    logger.debug('early attempt job skipped', { deliveryId: job.deliveryId, nextAttemptAt: delivery.nextAttemptAt });
    return;
  }
  const subscription = await deps.webhooks.getSubscription(job.orgId, job.webhookId);
  if (subscription?.status !== 'active') {
    const lastError = subscription ? 'subscription_disabled' : 'subscription_deleted';
    const saved = await deps.webhooks.saveDelivery(
      { ...delivery, status: 'failed', lastError, nextAttemptAt: undefined, updatedAt: now.toISOString() },
      delivery.updatedAt,
    );
    if (saved) countBusiness('deliveriesFailed');
    return;
  }
  // A slow receiver never waits in the healthy receivers' pool: its job moves to its own (once; no attempt spent).
  if (pool.queue === WEBHOOK_DELIVERIES_QUEUE && poolOf(subscription) !== pool.queue) {
    await enqueueJob(deps, job, 0, poolOf(subscription));
    return;
  }
  const leaseId = `${delivery.deliveryId}:${deps.ids.next('att')}`;
  const slot = attemptSlot(subscription, now);
  if (slot.free) await pool.admit();
  const leased = slot.free ? await tryLease(deps, subscription, now, leaseId) : undefined;
  if (!leased) {
    const retryAt = slot.free ? new Date(now.getTime() + 1_000) : slot.retryAt;
    logger.debug('no attempt slot; the delivery waits', { deliveryId: job.deliveryId, retryAt: retryAt.toISOString() });
    deps.slotHints?.markBusy(job.webhookId, retryAt.getTime());
    await waitForSlot(deps, delivery, retryAt, poolOf(subscription));
    return;
  }
  // This attempt took the last free slot: the next deliveries of the subscription need not look before it ends.
  const after = attemptSlot(leased, now);
  if (!after.free) deps.slotHints?.markBusy(job.webhookId, after.retryAt.getTime());
  let ended: Attempted = { outcome: 'abandoned', latencyMs: 0 };
  try {
    ended = await attemptWithLease(deps, delivery, leased, now);
  } finally {
    deps.slotHints?.forget(job.webhookId);
    const { outcome, latencyMs } = ended;
    const settled = await deps.webhooks
      .updateSubscription(job.orgId, job.webhookId, (current) =>
        settleLease(current, deps.clock.now(), leaseId, outcome, latencyMs),
      )
      .catch((error: unknown) => {
        logger.warn('attempt slot not freed; it frees itself when its lease ends', {
          webhookId: job.webhookId,
          error: error as Error,
        });
        return undefined;
      });
    if (outcome === 'failed' && settled) await disableIfFailingTooLong(deps, settled, deps.clock.now());
  }
}

/** How an attempt ended, and how long it held the dispatcher waiting for the receiver. */
interface Attempted {
  outcome: 'succeeded' | 'failed' | 'abandoned';
  latencyMs: number;
}

/** Takes an attempt slot with a conditional write; undefined when another attempt took it first. */
async function tryLease(deps: DispatchDeps, subscription: Subscription, now: Date, leaseId: string) {
  try {
    const updated = await deps.webhooks.updateSubscription(subscription.orgId, subscription.webhookId, (current) =>
      takeLease(current, now, leaseId),
    );
    return updated && holdsLease(updated, leaseId) ? updated : undefined;
  } catch (error) {
    if (error instanceof SubscriptionContendedError) return undefined;
    throw error;
  }
}

/**
 * The delivery waits for a free slot: its job comes back at `retryAt` (spread up to twice the wait), its attempt
 * count unchanged. A short wait only re-queues the job (a read-only look costs two reads and a send); a wait beyond
 * the queue's longest delay goes through the due-time index. A duplicate job re-queues itself too, and loses to the
 * first claim as usual.
 */
async function waitForSlot(deps: DispatchDeps, delivery: Delivery, retryAt: Date, queue: string) {
  const now = deps.clock.now();
  const delaySeconds = spreadDelaySeconds(deps, retryAt);
  if (delaySeconds <= MAX_QUEUE_DELAY_SECONDS) return enqueue(deps, delivery, delaySeconds, queue);
  const nextAttemptAt = new Date(now.getTime() + delaySeconds * 1000).toISOString();
  const waiting: Delivery = { ...delivery, nextAttemptAt, updatedAt: now.toISOString() };
  if (waiting.updatedAt === delivery.updatedAt) waiting.updatedAt = new Date(now.getTime() + 1).toISOString();
  await deps.webhooks.saveDelivery(waiting, delivery.updatedAt, nextAttemptAt);
}

async function attemptWithLease(
  deps: DispatchDeps,
  delivery: Delivery,
  subscription: Subscription,
  now: Date,
): Promise<Attempted> {
  // Claims the attempt: a duplicate job that read the same version loses here.
  const claimed = { ...delivery, updatedAt: now.toISOString() };
  if (claimed.updatedAt === delivery.updatedAt) claimed.updatedAt = new Date(now.getTime() + 1).toISOString();
  if (!(await deps.webhooks.saveDelivery(claimed, delivery.updatedAt))) {
    logger.debug('attempt not claimed: the delivery changed meanwhile', { deliveryId: delivery.deliveryId });
    return { outcome: 'abandoned', latencyMs: 0 };
  }

  const context = secretContext(subscription.orgId, subscription.webhookId);
  const secrets = await Promise.all(
    activeSecrets(subscription, now).map((secret) => deps.secretBox.open(secret, context)),
  );
  const headers = webhookHeaders(
    { id: delivery.eventId, timestamp: Math.floor(now.getTime() / 1000), body: delivery.body },
    secrets,
  );
  const result = await deps.webhookTransport.send(
    subscription.url,
    { headers: { ...headers }, body: delivery.body },
    { timeoutMs: inSlowLane(subscription) ? SLOW_LANE_TIMEOUT_MS : ATTEMPT_TIMEOUT_MS },
  );

  const done = deps.clock.now();
  const attempt = {
    attempt: claimed.attempts + 1,
    at: now.toISOString(),
    statusCode: result.statusCode,
    latencyMs: result.latencyMs,
    error: result.error ?? (result.ok || result.statusCode === undefined ? undefined : `http_${result.statusCode}`),
    responseBody: result.responseBody,
  };
  const next: Delivery = {
    ...claimed,
    attempts: claimed.attempts + 1,
    cycleAttempts: claimed.cycleAttempts + 1,
    lastStatusCode: result.statusCode,
    lastError: result.ok ? undefined : (result.error ?? `http_${result.statusCode}`),
    attemptLog: [...claimed.attemptLog, attempt].slice(-ATTEMPT_LOG_SIZE),
    updatedAt: done.toISOString(),
  };
  const latencyMs = result.latencyMs;
  if (result.ok) {
    if (await deps.webhooks.saveDelivery({ ...next, status: 'succeeded', nextAttemptAt: undefined }, claimed.updatedAt))
      countBusiness('deliveriesSucceeded');
    return { outcome: 'succeeded', latencyMs };
  }
  if (result.gone) {
    if (await deps.webhooks.saveDelivery({ ...next, status: 'failed', nextAttemptAt: undefined }, claimed.updatedAt))
      countBusiness('deliveriesFailed');
    await disable(deps, subscription, 'GONE', done);
    return { outcome: 'failed', latencyMs };
  }
  const schedule = deps.config.webhooks.retryScheduleSeconds;
  const step = schedule[next.cycleAttempts - 1];
  if (step === undefined) {
    if (await deps.webhooks.saveDelivery({ ...next, status: 'failed', nextAttemptAt: undefined }, claimed.updatedAt))
      countBusiness('deliveriesFailed');
  } else {
    const jittered = step * (0.9 + (deps.random ?? Math.random)() * 0.2);
    // A Retry-After beyond 10 h (or not a number at all) is ignored: the schedule decides (CONTRACT §18).
    const delaySeconds = Math.max(jittered, honouredRetryAfter(result.retryAfterSeconds) ?? 0);
    const nextAttemptAt = new Date(done.getTime() + delaySeconds * 1000).toISOString();
    const retrying: Delivery = { ...next, status: 'retrying', nextAttemptAt };
    const longWait = delaySeconds > MAX_QUEUE_DELAY_SECONDS;
    if (await deps.webhooks.saveDelivery(retrying, claimed.updatedAt, longWait ? nextAttemptAt : undefined)) {
      // The retry runs in the pool this attempt's time chose (settleLease records it on the subscription).
      const queue = poolOf({ slowReceiver: latencyMs >= SLOW_RECEIVER_MS });
      if (!longWait) await enqueue(deps, retrying, delaySeconds, queue);
    }
  }
  return { outcome: 'failed', latencyMs };
}

/** Moves deliveries whose long wait is over back onto the queue (the webhook sweeper). */
export async function sweepDueDeliveries(deps: Pick<DispatchDeps, 'clock' | 'webhooks' | 'queue'>): Promise<number> {
  const due = await deps.webhooks.dueDeliveries(deps.clock.now(), 100);
  for (const listed of due) {
    // With its organisation's credentials (CONTRACT §25); to the healthy receivers' pool: the dispatcher moves a slow
    // receiver's job to its own.
    await forOrganisation(listed.orgId, async (orgId) => {
      const delivery = { ...listed, orgId };
      await enqueue(deps, delivery, 0, WEBHOOK_DELIVERIES_QUEUE);
      await deps.webhooks.saveDelivery(delivery, delivery.updatedAt);
    });
  }
  return due.length;
}

function activeSecrets(subscription: Subscription, now: Date): string[] {
  return subscription.secrets
    .filter((secret) => !secret.retiresAt || Date.parse(secret.retiresAt) > now.getTime())
    .map((secret) => secret.sealed);
}

/** The wait until `retryAt`, spread up to twice as long so that the deliveries waiting for one slot do not all look at once. */
function spreadDelaySeconds(deps: Pick<DispatchDeps, 'clock' | 'random'>, retryAt: Date): number {
  const spread = 1 + (deps.random ?? Math.random)();
  return Math.max(1, ((retryAt.getTime() - deps.clock.now().getTime()) / 1000) * spread);
}

async function enqueue(deps: Pick<DispatchDeps, 'queue'>, delivery: Delivery, delaySeconds: number, queue: string) {
  await enqueueJob(
    deps,
    { kind: 'attempt', orgId: delivery.orgId, webhookId: delivery.webhookId, deliveryId: delivery.deliveryId },
    delaySeconds,
    queue,
  );
}

async function enqueueJob(deps: Pick<DispatchDeps, 'queue'>, job: AttemptJob, delaySeconds: number, queue: string) {
  const delay = Math.min(MAX_QUEUE_DELAY_SECONDS, Math.ceil(delaySeconds));
  await deps.queue.send(queue, job, { delaySeconds: delay });
}

/** Five days of failures since the last success disable the subscription. */
async function disableIfFailingTooLong(deps: DispatchDeps, subscription: Subscription, now: Date) {
  const since = subscription.failingSince;
  if (since && now.getTime() - Date.parse(since) >= DISABLE_AFTER_FAILING_SECONDS * 1000)
    await disable(deps, subscription, 'FAILING', now);
}

async function disable(deps: DispatchDeps, subscription: Subscription, reason: 'GONE' | 'FAILING', now: Date) {
  logger.warn('webhook subscription disabled', { webhookId: subscription.webhookId, reason });
  await deps.webhooks.updateSubscription(subscription.orgId, subscription.webhookId, (current) =>
    current.status === 'disabled'
      ? undefined
      : { status: 'disabled', disabledReason: reason, updatedAt: now.toISOString() },
  );
}

/**
 * The dispatcher's queue carries bus events (forwarded at once), fan-out jobs and attempt jobs; the slow receivers'
 * queue attempt jobs only.
 */
export function dispatchMessage(
  deps: DispatchDeps,
  message: AttemptJob | FanOutJob | BusEvent,
  pool: DispatchPool = UNSHARED_POOL,
): Promise<unknown> {
  const kind = (message as { kind?: unknown }).kind;
  if (kind === 'attempt') return attemptDelivery(deps, message as AttemptJob, pool);
  if (kind === 'fan-out') return fanOutEvent(deps, (message as FanOutJob).event);
  return forwardEvent(deps, message as BusEvent);
}
