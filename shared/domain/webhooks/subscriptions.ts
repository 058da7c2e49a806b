import type { Config } from '#shared/config/env';
import { decodeCursor, encodeCursor } from '#shared/domain/cursor';
import { DomainError, RateLimitedError } from '#shared/errors';
import type { ALL_EVENTS, EventType } from '#shared/events/catalog';
import type { Clock } from '#shared/ports/clock';
import type { CursorKey } from '#shared/ports/cursor-key';
import type { RateLimiter } from '#shared/ports/idempotency-store';
import type { IdGenerator } from '#shared/ports/ids';
import type { JobQueue } from '#shared/ports/job-queue';
import type { SecretBox } from '#shared/ports/secret-box';
import type { WebhookStore } from '#shared/ports/webhook-store';
import type { WebhookTransport } from '#shared/ports/webhook-transport';
import { generateWebhookSecret } from './signature.ts';
import {
  attemptsView,
  deliveryView,
  ROTATION_OVERLAP_SECONDS,
  type Subscription,
  secretContext,
  subscribedEvents,
  subscriptionView,
} from './subscription.ts';

export const WEBHOOK_DELIVERIES_QUEUE = 'webhook-deliveries';
/** The slow receivers' own dispatcher pool (lanes.ts SLOW_RECEIVER_MS). */
export const WEBHOOK_SLOW_RECEIVERS_QUEUE = 'webhook-slow-receivers';

export interface SubscriptionDeps {
  config: Pick<Config, 'webhooks'>;
  clock: Clock;
  ids: IdGenerator;
  webhooks: WebhookStore;
  secretBox: SecretBox;
  webhookTransport: Pick<WebhookTransport, 'validate'>;
}

const notFound = (webhookId: string) =>
  new DomainError('WEBHOOK_NOT_FOUND', `webhook ${webhookId} does not exist in this organisation`);
const deliveryNotFound = (deliveryId: string) =>
  new DomainError('DELIVERY_NOT_FOUND', `delivery ${deliveryId} does not exist`);

/**
 * Subscribes a URL to events (CONTRACT §7).
 * 1. Check the URL against the SSRF policy, resolving it once (422 WEBHOOK_URL_NOT_ALLOWED).
 * 2. Generate a `whsec_` secret, store it sealed (KMS on AWS), and show it this once.
 * 3. Store it in one of the organisation's `WEBHOOK_SUBSCRIPTION_LIMIT` slots (422 WEBHOOK_LIMIT_REACHED).
 */
export async function createSubscription(
  deps: SubscriptionDeps,
  input: { orgId: string; url: string; events?: (EventType | typeof ALL_EVENTS)[]; description?: string },
) {
  await deps.webhookTransport.validate(input.url);
  const now = deps.clock.now().toISOString();
  const secret = generateWebhookSecret();
  const webhookId = deps.ids.next('whk');
  const subscription: Subscription = {
    webhookId,
    orgId: input.orgId,
    url: input.url,
    events: subscribedEvents(input.events),
    description: input.description,
    status: 'active',
    secrets: [{ sealed: await deps.secretBox.seal(secret, secretContext(input.orgId, webhookId)), createdAt: now }],
    createdAt: now,
    updatedAt: now,
  };
  const limit = deps.config.webhooks.subscriptionLimit;
  if (!(await deps.webhooks.createSubscription(subscription, limit))) {
    throw new DomainError('WEBHOOK_LIMIT_REACHED', `an organisation can have at most ${limit} webhook subscriptions`, {
      extensions: { limit },
    });
  }
  return { ...subscriptionView(subscription), secret };
}

export async function listSubscriptions(
  deps: Pick<SubscriptionDeps, 'webhooks'> & { cursorKey: CursorKey },
  input: { orgId: string; limit: number; cursor?: string },
) {
  const binding = ['webhooks', input.orgId];
  const key = await deps.cursorKey.get();
  const page = await deps.webhooks.listSubscriptions(input.orgId, {
    limit: input.limit,
    startKey: decodeCursor(key, input.cursor, binding),
  });
  return { webhooks: page.items.map(subscriptionView), nextCursor: encodeCursor(key, page.nextKey, binding) };
}

/** Changes a subscription; a new URL is checked again, and `status: active` re-enables one that was disabled. */
export async function updateSubscription(
  deps: Pick<SubscriptionDeps, 'clock' | 'webhooks' | 'webhookTransport'>,
  input: {
    orgId: string;
    webhookId: string;
    url?: string;
    events?: (EventType | typeof ALL_EVENTS)[];
    description?: string;
    status?: 'active' | 'disabled';
  },
) {
  if (input.url !== undefined) await deps.webhookTransport.validate(input.url);
  const now = deps.clock.now().toISOString();
  const updated = await deps.webhooks.updateSubscription(input.orgId, input.webhookId, (current) => ({
    ...(input.url !== undefined ? { url: input.url } : {}),
    ...(input.events !== undefined ? { events: subscribedEvents(input.events) } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.status === 'active'
      ? { status: 'active' as const, disabledReason: undefined, failingSince: undefined }
      : {}),
    ...(input.status === 'disabled' && current.status === 'active'
      ? { status: 'disabled' as const, disabledReason: 'MANUAL' as const }
      : {}),
    updatedAt: now,
  }));
  if (!updated) throw notFound(input.webhookId);
  return subscriptionView(updated);
}

export async function deleteSubscription(
  deps: Pick<SubscriptionDeps, 'webhooks'>,
  input: { orgId: string; webhookId: string },
) {
  if (!(await deps.webhooks.deleteSubscription(input.orgId, input.webhookId))) throw notFound(input.webhookId);
}

/**
 * A new secret; the current one keeps signing beside it for 24 h (deliveries carry both signatures). At most two are
 * ever live (CONTRACT §13): a secret still in its overlap from an earlier rotation retires at once.
 */
export async function rotateSecret(
  deps: Pick<SubscriptionDeps, 'clock' | 'webhooks' | 'secretBox'>,
  input: { orgId: string; webhookId: string },
) {
  const now = deps.clock.now();
  const secret = generateWebhookSecret();
  const sealed = await deps.secretBox.seal(secret, secretContext(input.orgId, input.webhookId));
  const retiresAt = new Date(now.getTime() + ROTATION_OVERLAP_SECONDS * 1000).toISOString();
  const updated = await deps.webhooks.updateSubscription(input.orgId, input.webhookId, (current) => ({
    secrets: [
      { sealed, createdAt: now.toISOString() },
      ...current.secrets
        .filter((old) => !old.retiresAt)
        .slice(0, 1)
        .map((old) => ({ ...old, retiresAt })),
    ],
    updatedAt: now.toISOString(),
  }));
  if (!updated) throw notFound(input.webhookId);
  return { secret };
}

export async function listDeliveries(
  deps: Pick<SubscriptionDeps, 'webhooks'> & { cursorKey: CursorKey },
  input: { orgId: string; webhookId: string; limit: number; cursor?: string },
) {
  if (!(await deps.webhooks.getSubscription(input.orgId, input.webhookId))) throw notFound(input.webhookId);
  const binding = ['deliveries', input.orgId, input.webhookId];
  const key = await deps.cursorKey.get();
  const page = await deps.webhooks.listDeliveries(input.orgId, input.webhookId, {
    limit: input.limit,
    startKey: decodeCursor(key, input.cursor, binding),
  });
  return { deliveries: page.items.map(deliveryView), nextCursor: encodeCursor(key, page.nextKey, binding) };
}

/** A delivery's attempts, oldest first: 404 WEBHOOK_NOT_FOUND or DELIVERY_NOT_FOUND. */
export async function listDeliveryAttempts(
  deps: Pick<SubscriptionDeps, 'webhooks'>,
  input: { orgId: string; webhookId: string; deliveryId: string },
) {
  if (!(await deps.webhooks.getSubscription(input.orgId, input.webhookId))) throw notFound(input.webhookId);
  const delivery = await deps.webhooks.getDelivery(input.orgId, input.webhookId, input.deliveryId);
  if (!delivery) throw deliveryNotFound(input.deliveryId);
  return { attempts: attemptsView(delivery) };
}

/**
 * Delivers a finished delivery again: the same delivery and webhook-id, a new cycle of attempts.
 * 409 DELIVERY_IN_PROGRESS while it is pending or retrying; 429 RATE_LIMITED past WEBHOOK_REDELIVER_RATE_LIMIT per
 * organisation (CONTRACT §18), counted only for a delivery that could be redelivered.
 */
export async function redeliver(
  deps: Pick<SubscriptionDeps, 'webhooks' | 'clock'> & {
    queue: JobQueue;
    limits: RateLimiter;
    config: Pick<Config, 'quotas'>;
  },
  input: { orgId: string; webhookId: string; deliveryId: string },
) {
  if (!(await deps.webhooks.getSubscription(input.orgId, input.webhookId))) throw notFound(input.webhookId);
  const delivery = await deps.webhooks.getDelivery(input.orgId, input.webhookId, input.deliveryId);
  if (!delivery) throw deliveryNotFound(input.deliveryId);
  if (delivery.status === 'pending' || delivery.status === 'retrying') {
    throw new DomainError('DELIVERY_IN_PROGRESS', 'the delivery is still being attempted');
  }
  const { limit, windowSeconds } = deps.config.quotas.redeliveries;
  const quota = await deps.limits.take('webhook-redeliver', input.orgId, limit, windowSeconds, deps.clock.now());
  if (!quota.allowed) {
    throw new RateLimitedError(`at most ${limit} redeliveries per ${windowSeconds} s`, quota.retryAfterSeconds);
  }
  const now = deps.clock.now().toISOString();
  const reset = { ...delivery, status: 'pending' as const, cycleAttempts: 0, nextAttemptAt: now, updatedAt: now };
  if (!(await deps.webhooks.saveDelivery(reset, delivery.updatedAt))) {
    throw new DomainError('DELIVERY_IN_PROGRESS', 'the delivery changed meanwhile');
  }
  await deps.queue.send(WEBHOOK_DELIVERIES_QUEUE, {
    kind: 'attempt',
    orgId: input.orgId,
    webhookId: input.webhookId,
    deliveryId: input.deliveryId,
  });
  return { deliveryId: input.deliveryId, status: 'pending' as const };
}
