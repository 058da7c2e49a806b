import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { EventOutbox } from '#shared/ports/event-outbox';
import type { DomainEvent } from '#shared/ports/event-publisher';
import { applied } from './client.ts';
import { outboxKeys } from './keys.ts';
import { markItemPublished, sparseIndexItems } from './lifecycle.ts';

/** Meta retries a notification for 7 days; the record outlives that, then TTL may clean it up. */
const KEEP_SECONDS = 8 * 24 * 3600;

export class DynamoEventOutbox implements EventOutbox {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async record(event: DomainEvent, now: string): Promise<boolean> {
    return applied(
      this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...outboxKeys.event(event.eventId),
            ...outboxKeys.unpublished(now, event.eventId),
            entity: 'EVENT',
            ...event,
            recordedAt: now,
            ttl: Math.floor(Date.parse(now) / 1000) + KEEP_SECONDS,
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      ),
    );
  }

  markPublished(eventId: string, now: string): Promise<void> {
    return markItemPublished(this.db, this.tableName, outboxKeys.event(eventId), now);
  }

  /** The oldest `limit` unpublished events across the index's shards. */
  async listUnpublished(limit: number) {
    const shards = await Promise.all(
      outboxKeys.unpublishedPartitions.map((partition) =>
        sparseIndexItems<DomainEvent & { recordedAt: string }>(this.db, this.tableName, partition, limit),
      ),
    );
    return shards
      .flat()
      .sort((a, b) => a.recordedAt.localeCompare(b.recordedAt))
      .slice(0, limit);
  }
}
