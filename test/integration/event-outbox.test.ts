import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoEventOutbox } from '#shared/adapters/dynamodb/event-outbox';
import { OUTBOX_SHARDS, outboxKeys } from '#shared/adapters/dynamodb/keys';
import type { DomainEvent } from '#shared/ports/event-publisher';
import { useDynamo } from '#test/support/dynamo';

const table = useDynamo();

const event = (eventId: string): DomainEvent => ({
  eventId,
  type: 'message.received',
  organisationId: '0b0e2bd8-3a41-4b7a-9b43-2f7a8e0c1d55',
  occurredAt: '2026-11-24T10:00:00.000Z',
  data: {},
});

describe('the event outbox (docs/SCALE.md: its sparse index is sharded)', () => {
  it('spreads unpublished events over the index shards, and lists the oldest first across all of them', async () => {
    const outbox = new DynamoEventOutbox(table.db, table.tableName);
    const run = Math.random().toString(36).slice(2);
    for (let index = 0; index < 40; index += 1) {
      await outbox.record(event(`${run}-${index}`), `2026-11-24T10:00:${String(index).padStart(2, '0')}.000Z`);
    }
    await table.db.send(
      new PutCommand({
        TableName: table.tableName,
        Item: {
          ...outboxKeys.legacyEvent(`${run}-legacy`),
          GSI1PK: 'EVENT#UNPUBLISHED',
          GSI1SK: `2026-11-24T09:59:59.000Z#${run}-legacy`,
          ...event(`${run}-legacy`),
          recordedAt: '2026-11-24T09:59:59.000Z',
        },
      }),
    );

    const listed = await outbox.listUnpublished(10);
    const used = await Promise.all(
      outboxKeys.unpublishedPartitions.map(async (partition) => {
        const page = await table.db.send(
          new QueryCommand({
            TableName: table.tableName,
            IndexName: 'GSI1',
            KeyConditionExpression: 'GSI1PK = :pk',
            ExpressionAttributeValues: { ':pk': partition },
            Select: 'COUNT',
          }),
        );
        return page.Count ?? 0;
      }),
    );

    expect(listed.map((item) => item.eventId)).toEqual([
      `${run}-legacy`,
      ...Array.from({ length: 9 }, (_, index) => `${run}-${index}`),
    ]);
    expect(used.filter((count) => count > 0).length).toBeGreaterThan(OUTBOX_SHARDS / 2);
    expect(Math.max(...used.slice(1))).toBeLessThan(40);
  });

  it('takes a published event out of its shard', async () => {
    const outbox = new DynamoEventOutbox(table.db, table.tableName);
    const eventId = `published-${Math.random().toString(36).slice(2)}`;
    await outbox.record(event(eventId), '2026-11-24T08:00:00.000Z');

    await outbox.markPublished(event(eventId), '2026-11-24T08:00:01.000Z');

    expect((await outbox.listUnpublished(100)).map((item) => item.eventId)).not.toContain(eventId);
  });

  it("keeps an event in its organisation's partitions, and stamps one recorded before them where it is", async () => {
    const outbox = new DynamoEventOutbox(table.db, table.tableName);
    const eventId = `owned-${Math.random().toString(36).slice(2)}`;
    const legacyId = `legacy-${Math.random().toString(36).slice(2)}`;
    await outbox.record(event(eventId), '2026-11-24T08:00:00.000Z');
    await table.db.send(
      new PutCommand({
        TableName: table.tableName,
        Item: {
          ...outboxKeys.legacyEvent(legacyId),
          GSI1PK: 'EVENT#UNPUBLISHED',
          GSI1SK: `2026-11-24T07:59:59.000Z#${legacyId}`,
          ...event(legacyId),
          recordedAt: '2026-11-24T07:59:59.000Z',
        },
      }),
    );

    const owned = await Promise.all(
      outboxKeys.partitions(event(eventId).organisationId).map((partition) =>
        table.db.send(
          new QueryCommand({
            TableName: table.tableName,
            KeyConditionExpression: 'PK = :pk',
            ExpressionAttributeValues: { ':pk': partition },
          }),
        ),
      ),
    );
    await outbox.markPublished(event(legacyId), '2026-11-24T08:00:01.000Z');

    expect(owned.flatMap((page) => page.Items ?? []).map((item) => item.eventId)).toContain(eventId);
    expect((await outbox.listUnpublished(100)).map((item) => item.eventId)).not.toContain(legacyId);
  });
});
