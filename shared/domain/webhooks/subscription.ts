import type { EventType } from '#shared/events/catalog';

/** A signing secret, sealed at rest. After a rotation the previous one keeps signing until `retiresAt`. */
export interface SealedSecret {
  sealed: string;
  createdAt: string;
  retiresAt?: string;
}

export interface Subscription {
  webhookId: string;
  orgId: string;
  url: string;
  events: EventType[];
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
export const DISABLE_AFTER_FAILING_SECONDS = 5 * 24 * 3600;

export function subscriptionView(subscription: Subscription) {
  const { webhookId, url, events, description, status, disabledReason, createdAt } = subscription;
  return {
    webhookId,
    url,
    events,
    description: description ?? null,
    status,
    ...(disabledReason ? { disabledReason } : {}),
    createdAt,
  };
}

export type DeliveryStatus = 'pending' | 'retrying' | 'succeeded' | 'failed';

export interface DeliveryAttempt {
  at: string;
  statusCode?: number;
  latencyMs: number;
  error?: string;
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
