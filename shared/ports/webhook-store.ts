import type { Delivery, Subscription } from '#shared/domain/webhooks/subscription';
import type { Page, PageRequest } from './identity-store.ts';

/** updateSubscription gave up: the subscription kept changing under it (many writers at once). */
export class SubscriptionContendedError extends Error {
  constructor(webhookId: string) {
    super(`webhook ${webhookId} kept changing; giving up`);
    this.name = 'SubscriptionContendedError';
  }
}

export interface WebhookStore {
  /**
   * Stores a new subscription in one of the organisation's `limit` slots: a counter item taken with a conditional
   * write first, so concurrent creates never pass the limit. False when every slot is taken (nothing is stored).
   */
  createSubscription(subscription: Subscription, limit: number): Promise<boolean>;
  getSubscription(orgId: string, webhookId: string): Promise<Subscription | undefined>;
  listSubscriptions(orgId: string, page: PageRequest): Promise<Page<Subscription>>;
  /** Every subscription of the organisation (fan-out; an organisation has few). */
  allSubscriptions(orgId: string): Promise<Subscription[]>;
  /**
   * Applies `change` with an optimistic version check; undefined when the subscription is gone.
   * @throws SubscriptionContendedError after a few lost races
   */
  updateSubscription(
    orgId: string,
    webhookId: string,
    change: (subscription: Subscription) => Partial<Subscription> | undefined,
  ): Promise<Subscription | undefined>;
  /** Deletes a subscription and frees its slot; false when there is none. */
  deleteSubscription(orgId: string, webhookId: string): Promise<boolean>;

  /**
   * Records the delivery of an event to a subscription once: the first call stores `delivery`, later calls (a
   * republished or redelivered event) return the delivery stored first.
   */
  createDelivery(delivery: Delivery): Promise<{ delivery: Delivery; created: boolean }>;
  getDelivery(orgId: string, webhookId: string, deliveryId: string): Promise<Delivery | undefined>;
  listDeliveries(orgId: string, webhookId: string, page: PageRequest): Promise<Page<Delivery>>;
  /** Replaces a delivery if its `updatedAt` is still `expectedUpdatedAt` (one writer per attempt). */
  saveDelivery(delivery: Delivery, expectedUpdatedAt: string, dueAt?: string): Promise<boolean>;
  /** Deliveries whose long wait is over (nextAttemptAt ≤ now), oldest first. */
  dueDeliveries(now: Date, limit: number): Promise<Delivery[]>;
}
