import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { EVENT_SOURCE } from '#shared/events/catalog';
import { eventDetail } from '#shared/events/domain-event';
import type { DomainEvent, EventPublisher } from '#shared/ports/event-publisher';

/** PutEvents onto the service bus; any failed entry fails the call (RELIABILITY G-1). */
export class EventBridgePublisher implements EventPublisher {
  constructor(
    private readonly client: EventBridgeClient,
    private readonly busName: string,
  ) {}

  async publish(events: DomainEvent[]): Promise<void> {
    for (let start = 0; start < events.length; start += 10) {
      const batch = events.slice(start, start + 10);
      const result = await this.client.send(
        new PutEventsCommand({
          Entries: batch.map((event) => ({
            EventBusName: this.busName,
            Source: EVENT_SOURCE,
            DetailType: event.type,
            Detail: JSON.stringify(eventDetail(event)),
            Time: new Date(event.occurredAt),
          })),
        }),
      );
      if ((result.FailedEntryCount ?? 0) > 0) {
        const codes = (result.Entries ?? []).map((entry) => entry.ErrorCode).filter(Boolean);
        throw new Error(`PutEvents failed for ${result.FailedEntryCount} entries: ${codes.join(', ')}`);
      }
    }
  }
}
