import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { asService } from '#shared/adapters/aws/tenant-scope';
import type { EventOutbox } from '#shared/ports/event-outbox';
import type { DomainEvent } from '#shared/ports/event-publisher';
import { applied, isConditionalCheckFailed } from './client.ts';
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
            ...outboxKeys.event(event.organisationId, event.eventId),
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

  async markPublished(event: Pick<DomainEvent, 'eventId' | 'organisationId'>, now: string): Promise<void> {
    try {
      await markItemPublished(this.db, this.tableName, outboxKeys.event(event.organisationId, event.eventId), now);
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      // Recorded before the outbox moved into the organisations' partitions: stamped where it is.
      await asService(() => markItemPublished(this.db, this.tableName, outboxKeys.legacyEvent(event.eventId), now));
    }
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
