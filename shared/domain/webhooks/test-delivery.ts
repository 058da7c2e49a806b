import type { Config } from '#shared/config/env';
import { DomainError, RateLimitedError, ValidationError } from '#shared/errors';
import { EVENT_TYPES, type EventType } from '#shared/events/catalog';
import { EVENT_EXAMPLES } from '#shared/openapi/examples';
import type { Clock } from '#shared/ports/clock';
import type { RateLimiter } from '#shared/ports/idempotency-store';
import type { IdGenerator } from '#shared/ports/ids';
import type { JobQueue } from '#shared/ports/job-queue';
import type { WebhookStore } from '#shared/ports/webhook-store';
import { effectiveEvents, subscribesTo } from './subscription.ts';
import { WEBHOOK_DELIVERIES_QUEUE } from './subscriptions.ts';

export interface TestDeliveryDeps {
  config: Pick<Config, 'quotas'>;
  clock: Clock;
  ids: IdGenerator;
  webhooks: WebhookStore;
  queue: JobQueue;
  limits: RateLimiter;
}

/**
 * A test delivery (CONTRACT §20, Svix's "send example"): the documented example body of a type the subscription
 * takes (the first one when none is named), with this organisation's id, a fresh event id (its webhook-id) and
 * `"test": true`, delivered, signed and retried like any other delivery and listed among the subscription's
 * deliveries — but never published on the bus, so no other subscription and no feed sees it. Counted against
 * WEBHOOK_REDELIVER_RATE_LIMIT once the request is valid.
 */
export async function sendTestDelivery(
  deps: TestDeliveryDeps,
  input: { orgId: string; webhookId: string; type?: EventType },
): Promise<{ deliveryId: string; eventId: string }> {
  const subscription = await deps.webhooks.getSubscription(input.orgId, input.webhookId);
  if (!subscription)
    throw new DomainError('WEBHOOK_NOT_FOUND', `webhook ${input.webhookId} does not exist in this organisation`);
  const type = input.type ?? firstSubscribedType(effectiveEvents(subscription) as string[]);
  if (!subscribesTo(subscription, type)) {
    throw new ValidationError([{ pointer: '/type', message: `the subscription does not take ${type} events` }]);
  }
  const { limit, windowSeconds } = deps.config.quotas.redeliveries;
  const quota = await deps.limits.take('webhook-redeliver', input.orgId, limit, windowSeconds, deps.clock.now());
  if (!quota.allowed) {
    throw new RateLimitedError(
      `at most ${limit} redeliveries and tests per ${windowSeconds} s`,
      quota.retryAfterSeconds,
    );
  }
  const now = deps.clock.now().toISOString();
  const eventId = deps.ids.next('evt');
  const body = testDeliveryBody(type, input.orgId, now);
  const { delivery } = await deps.webhooks.createDelivery({
    deliveryId: deps.ids.next('dlv'),
    webhookId: input.webhookId,
    orgId: input.orgId,
    eventId,
    type,
    body: JSON.stringify(body),
    status: 'pending',
    attempts: 0,
    cycleAttempts: 0,
    attemptLog: [],
    nextAttemptAt: now,
    createdAt: now,
    updatedAt: now,
  });
  await deps.queue.send(WEBHOOK_DELIVERIES_QUEUE, {
    kind: 'attempt',
    orgId: input.orgId,
    webhookId: input.webhookId,
    deliveryId: delivery.deliveryId,
  });
  return { deliveryId: delivery.deliveryId, eventId };
}

/**
 * The body of a test delivery of `type`: the type's documented example with this organisation, the time of the test
 * and `"test": true`, which every event's schema declares (optional; absent on events that happened).
 */
export function testDeliveryBody(type: EventType, orgId: string, now: string): Record<string, unknown> {
  return {
    ...(EVENT_EXAMPLES[type] as Record<string, unknown>),
    type,
    timestamp: now,
    organisation_id: orgId,
    test: true,
  };
}

/** The first type of the catalog among a subscription's events (`*`: the catalog's first). */
function firstSubscribedType(events: string[]): EventType {
  return EVENT_TYPES.find((type) => events.includes('*') || events.includes(type)) ?? EVENT_TYPES[0];
}
