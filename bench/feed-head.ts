import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable, startDynamo } from '#infra/local/servers';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { DynamoEventFeed } from '#shared/adapters/dynamodb/event-feed';
import { feedKeys } from '#shared/adapters/dynamodb/keys';
import type { EventFeed, FeedEntry } from '#shared/ports/event-feed';
import { CapacityMeter } from './capacity-meter.ts';

export interface FeedHeadSizes {
  /** Feed writers appending to one organisation's feed at once (the event-feed consumer's 10 invocations). */
  writers: number;
  /** Appends per writer. */
  rounds: number;
  /** Events per append (one queue batch of one organisation). */
  batch: number;
}

export const FEED_HEAD_FULL: FeedHeadSizes = { writers: 10, rounds: 20, batch: 10 };

/**
 * One organisation's feed head under concurrent writers (docs/SCALE.md, "The events feed's head"): `writers` appenders
 * each append `rounds` batches of `batch` new events, all at once, against dynalite with the capacity meter installed.
 * Counts the head's commits and conditional failures, the calls and the write units per event, the head's partition
 * among them. `Feed` is the adapter measured (an earlier version for a before/after).
 */
export async function feedHeadBenchmark(
  sizes: FeedHeadSizes,
  Feed: new (
    db: ReturnType<typeof createDocumentClient>,
    tableName: string,
  ) => Pick<EventFeed, 'append'> = DynamoEventFeed,
) {
  const server = await startDynamo({ port: 0 });
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const connection = { region: 'eu-west-1', endpoint: server.endpoint, credentials };
  try {
    await ensureTable(new DynamoDBClient(connection), 'wpcrm');
    const db = createDocumentClient(connection);
    const orgId = 'org-feed-head';
    const meter = new CapacityMeter(connection).install();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: sizes.writers }, async (_, writer) => {
        const feed = new Feed(db, 'wpcrm');
        for (let round = 0; round < sizes.rounds; round++) {
          const entries: FeedEntry[] = Array.from({ length: sizes.batch }, (_, index) => ({
            eventId: `evt_${writer}_${round}_${index}`,
            type: 'message.status',
            timestamp: new Date().toISOString(),
            body: JSON.stringify({
              type: 'message.status',
              message_id: `msg_${writer}_${round}_${index}`,
              status: 'sent',
            }),
            expiresAt: Math.floor(Date.now() / 1000) + 86_400,
          }));
          await feed.append(orgId, entries);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    meter.uninstall();
    const events = sizes.writers * sizes.rounds * sizes.batch;
    const operations = Object.fromEntries([...meter.operations].map(([key, entry]) => [key.replace(/^-:/, ''), entry]));
    const writeUnits = Object.values(operations).reduce((sum, entry) => sum + entry.writeUnits, 0);
    const calls = Object.values(operations).reduce((sum, entry) => sum + entry.calls, 0);
    const headPartition = meter.partitionWrites.get(`table ${feedKeys.partition(orgId)}`) ?? 0;
    const update = operations.UpdateItem ?? { calls: 0, conditionalFailures: 0 };
    return {
      events,
      seconds: Math.round(seconds * 10) / 10,
      eventsPerSecond: Math.round(events / seconds),
      callsPerEvent: Math.round((calls / events) * 100) / 100,
      writeUnitsPerEvent: Math.round((writeUnits / events) * 100) / 100,
      headUpdates: update.calls,
      headConditionalFailures: update.conditionalFailures,
      feedPartitionWriteUnitsPerEvent: Math.round((headPartition / events) * 100) / 100,
      operations,
    };
  } finally {
    await server.close();
  }
}
