import type { EventType } from '#shared/events/catalog';

/**
 * A domain event. `eventId` is derived from what the event reports (e.g. request id + type), so publishing it twice
 * still gives one delivery: it becomes the webhook-id, and the dispatcher records deliveries per (subscription, event).
 */
export interface DomainEvent {
  eventId: string;
  type: EventType;
  organisationId: string;
  /** When it happened (ISO 8601). */
  occurredAt: string;
  /** The webhook body fields of CONTRACT §7 other than `type` and `timestamp`. */
  data: Record<string, unknown>;
}

export interface EventPublisher {
  /** Publishes every event or throws; a partial failure is a failure. */
  publish(events: DomainEvent[]): Promise<void>;
}
