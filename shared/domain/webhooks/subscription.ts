import { ALL_EVENTS, type EventType, FIRST_EVENT_TYPES } from '#shared/events/catalog';

/** What a subscription listens to: named types, or `["*"]` for every type, present and future (CONTRACT §12). */
export type SubscribedEvents = EventType[] | [typeof ALL_EVENTS];

/** A signing secret, sealed at rest. After a rotation the previous one keeps signing until `retiresAt`. */
export interface SealedSecret {
  sealed: string;
  createdAt: string;
  retiresAt?: string;
}

export interface AttemptLease {
  /** The delivery and a random suffix: one attempt. */
  leaseId: string;
  until: string;
}

/** What a subscription records (its lanes, lanes.ts) about its attempts in flight and its recent failures. */
export interface LaneState {
  attemptLeases?: AttemptLease[];
  /** Failed or timed-out attempts since the last success. */
  recentFailures?: number;
  /** In the slow lane: the earliest time of its next attempt. */
  slowLaneNextAt?: string;
  /** Its last attempt took SLOW_RECEIVER_MS or more: its attempts run in the slow receivers' pool. */
  slowReceiver?: boolean;
}

export interface Subscription extends LaneState {
  webhookId: string;
  orgId: string;
  url: string;
  events: SubscribedEvents;
  description?: string;
  status: 'active' | 'disabled';
  disabledReason?: 'GONE' | 'FAILING' | 'MANUAL';
  secrets: SealedSecret[];
  /** Start of the current run of failures; cleared by a success. Five days of it disable the subscription. */
  failingSince?: string;
  lastSuccessAt?: string;
  createdAt: string;
  updatedAt: string;
}

export const ROTATION_OVERLAP_SECONDS = 24 * 3600;

/** A subscription's receiver never holds more of the shared dispatcher than this many attempts at once (§18). */
export const ATTEMPTS_IN_FLIGHT_PER_SUBSCRIPTION = 2;
export const DISABLE_AFTER_FAILING_SECONDS = 5 * 24 * 3600;

/** Stores what was asked for: nothing, `[]` or a list holding `*` mean every type. */
export function subscribedEvents(events: (EventType | typeof ALL_EVENTS)[] | undefined): SubscribedEvents {
  if (!events?.length || events.includes(ALL_EVENTS)) return [ALL_EVENTS];
  return [...new Set(events as EventType[])];
}

/**
 * The subscription's events as they hold today. Subscriptions made before `*` existed stored the four types of the
 * time when `events` was omitted; exactly that list is read as every type, so they receive the new types too.
 */
export function effectiveEvents(subscription: Pick<Subscription, 'events'>): SubscribedEvents {
  const events = subscription.events as string[];
  const legacyAll =
    events.length === FIRST_EVENT_TYPES.length && FIRST_EVENT_TYPES.every((type) => events.includes(type));
  return legacyAll ? [ALL_EVENTS] : subscription.events;
}

export function subscribesTo(subscription: Pick<Subscription, 'events'>, type: EventType): boolean {
  const events = effectiveEvents(subscription) as string[];
  return events.includes(ALL_EVENTS) || events.includes(type);
}

export function subscriptionView(subscription: Subscription) {
  const { webhookId, url, description, status, disabledReason, createdAt } = subscription;
  return {
    webhookId,
    url,
    events: effectiveEvents(subscription),
    description: description ?? null,
    status,
    ...(disabledReason ? { disabledReason } : {}),
    createdAt,
  };
}

export type DeliveryStatus = 'pending' | 'retrying' | 'succeeded' | 'failed';

export interface DeliveryAttempt {
  /** 1 for the first attempt of the delivery; absent on attempts logged before it was recorded. */
  attempt?: number;
  at: string;
  statusCode?: number;
  latencyMs: number;
  error?: string;
  /** The first 1 KiB of the receiver's answer. */
  responseBody?: string;
}

export interface Delivery {
  deliveryId: string;
  webhookId: string;
  orgId: string;
  eventId: string;
  type: EventType;
  /** The exact body, the same bytes on every attempt. */
  body: string;
  status: DeliveryStatus;
  attempts: number;
  /** Attempts in the current cycle (a redelivery starts a new one). */
  cycleAttempts: number;
  lastStatusCode?: number;
  lastError?: string;
  nextAttemptAt?: string;
  attemptLog: DeliveryAttempt[];
  createdAt: string;
  updatedAt: string;
}

export function deliveryView(delivery: Delivery) {
  const { deliveryId, eventId, type, status, attempts, lastStatusCode, lastError, nextAttemptAt, createdAt } = delivery;
  return {
    deliveryId,
    eventId,
    type,
    status,
    attempts,
    lastStatusCode: lastStatusCode ?? null,
    lastError: lastError ?? null,
    nextAttemptAt: nextAttemptAt ?? null,
    createdAt,
  };
}

/** A delivery's logged attempts, oldest first (CONTRACT §12). */
export function attemptsView(delivery: Delivery) {
  const first = delivery.attempts - delivery.attemptLog.length + 1;
  return delivery.attemptLog.map((attempt, index) => ({
    attempt: attempt.attempt ?? first + index,
    at: attempt.at,
    statusCode: attempt.statusCode ?? null,
    durationMs: attempt.latencyMs,
    error: attempt.error ?? null,
    responseBody: attempt.responseBody ?? null,
  }));
}

/** The KMS encryption context of a subscription's secrets: a ciphertext opens only as this subscription's. */
export const secretContext = (orgId: string, webhookId: string) => ({ orgId, webhookId });
