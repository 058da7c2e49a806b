import { DeleteCommand, type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoEventFeed } from '#shared/adapters/dynamodb/event-feed';
import { feedKeys } from '#shared/adapters/dynamodb/keys';
import type { FeedEntry, SequencedEntry } from '#shared/ports/event-feed';
import { useDynamo } from '#test/support/dynamo';

const FAR = Math.floor(Date.now() / 1000) + 3600;
let serial = 0;

function entry(tag: string, expiresAt = FAR): FeedEntry {
  serial += 1;
  const body = JSON.stringify({ type: 'report.completed', tag, serial });
  return {
    eventId: `evt_${tag}_${serial}`,
    type: 'report.completed',
    timestamp: new Date().toISOString(),
    body,
    expiresAt,
  };
}

/** A writer whose item writes fail: it commits to the head and then stops, as a container that died there. */
function stoppingAfterCommit(db: DynamoDBDocumentClient): DynamoDBDocumentClient {
  return new Proxy(db, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return (command: { constructor: { name: string } }) =>
        ['PutCommand', 'BatchWriteCommand'].includes(command.constructor.name)
          ? Promise.reject(new Error('stopped'))
          : target.send(command as never);
    },
  });
}

describe('DynamoEventFeed (CONTRACT §20: never skip, never repeat)', () => {
  const table = useDynamo();

  it('gives a reader every entry exactly once, in one gap-free order, while independent writers race for the head and offer the same events twice', async () => {
    const orgId = 'org-race';
    const writers = Array.from({ length: 5 }, () => new DynamoEventFeed(table.db, table.tableName));
    const reader = new DynamoEventFeed(table.db, table.tableName);
    const offered: string[] = [];
    let writing = true;
    const seen: SequencedEntry[] = [];
    const reading = (async () => {
      let position = 0;
      for (;;) {
        const page = await reader.read(orgId, { position, limit: 7, nowSeconds: FAR - 60 });
        seen.push(...page.entries);
        position = page.position;
        if (page.done && !writing) return;
        if (page.done) await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();

    await Promise.all(
      writers.map(async (writer, index) => {
        for (let sent = 0; sent < 12; ) {
          const batch = Array.from({ length: 1 + ((sent + index) % 4) }, () => entry(`w${index}`));
          // The same events from two writers at once: a duplicate delivery racing the first.
          const twin = writers[(index + 1) % writers.length]!;
          await Promise.all([writer.append(orgId, batch), twin.append(orgId, batch)]);
          offered.push(...batch.map((item) => item.eventId));
          sent += batch.length;
        }
      }),
    );
    writing = false;
    await reading;
    const again = await reader.read(orgId, { position: 0, limit: 1000, nowSeconds: FAR - 60 });

    expect(seen.map((item) => item.seq)).toEqual(Array.from({ length: offered.length }, (_, index) => index + 1));
    expect(seen.map((item) => item.eventId).sort()).toEqual([...offered].sort());
    expect(again.entries).toEqual(seen);
  }, 120_000);

  it("serves entries a writer committed and never wrote out, and the writer's retry or the next writer writes them out", async () => {
    const orgId = 'org-stranded';
    const stopped = new DynamoEventFeed(stoppingAfterCommit(table.db), table.tableName);
    const stranded = [entry('stranded'), entry('stranded')];
    let clock = Date.now();
    const later = new DynamoEventFeed(table.db, table.tableName, () => clock);

    await expect(stopped.append(orgId, stranded)).rejects.toThrow('stopped');
    const whileStranded = await later.read(orgId, { position: 0, limit: 10, nowSeconds: FAR - 60 });
    clock += 60_000;
    const appended = await later.append(orgId, [stranded[0]!, entry('next')]);
    const afterwards = await later.read(orgId, { position: 0, limit: 10, nowSeconds: FAR - 60 });
    const { Item: head } = await table.db.send(
      new GetCommand({
        TableName: table.tableName,
        Key: { PK: `ORG#${orgId}#FEED`, SK: 'HEAD' },
      }),
    );

    expect(whileStranded.entries.map((item) => [item.seq, item.eventId])).toEqual([
      [1, stranded[0]!.eventId],
      [2, stranded[1]!.eventId],
    ]);
    expect(appended).toBe(1);
    expect(afterwards.entries.map((item) => item.seq)).toEqual([1, 2, 3]);
    expect(head).toMatchObject({ seq: 3, pending: {} });
  });

  it('commits a batch larger than the head holds in several commits, every entry once and in the order offered', async () => {
    const orgId = 'org-large';
    const feed = new DynamoEventFeed(table.db, table.tableName);
    const text = 'x'.repeat(4_000);
    const large = Array.from({ length: 100 }, () => ({ ...entry('large'), body: JSON.stringify({ text }) }));

    const appended = await feed.append(orgId, large);
    const read = await feed.read(orgId, { position: 0, limit: 1000, nowSeconds: FAR - 60 });

    expect(appended).toBe(100);
    expect(read.entries.map((item) => item.eventId)).toEqual(large.map((item) => item.eventId));
  });

  it('passes over the expired start of the feed for a reader from the oldest, and filters by type, moving the position past what it looked at', async () => {
    const orgId = 'org-expiry';
    const feed = new DynamoEventFeed(table.db, table.tableName);
    const now = Math.floor(Date.now() / 1000);
    const old = entry('old', now - 1);
    const kept = entry('kept');
    const failed = { ...entry('failed'), type: 'report.failed' };
    await feed.append(orgId, [old]);
    await feed.append(orgId, [kept, failed]);

    const all = await feed.read(orgId, { position: 0, fromOldest: true, limit: 10, nowSeconds: now });
    const onlyFailed = await feed.read(orgId, {
      position: 0,
      fromOldest: true,
      limit: 1,
      types: new Set(['report.failed']),
      nowSeconds: now,
    });

    expect(all).toMatchObject({ position: 3, done: true, expired: false });
    expect(all.entries.map((item) => item.eventId)).toEqual([kept.eventId, failed.eventId]);
    expect(onlyFailed).toMatchObject({ position: 3, done: true, expired: false });
    expect(onlyFailed.entries.map((item) => item.eventId)).toEqual([failed.eventId]);
  });

  it('never passes over an event a reader with a position has not read: the page stops before it, and the next read is expired', async () => {
    const orgId = 'org-behind';
    const feed = new DynamoEventFeed(table.db, table.tableName);
    const now = Math.floor(Date.now() / 1000);
    const read = entry('read');
    const unread = entry('unread', now + 10);
    const later = entry('later');
    await feed.append(orgId, [read, unread, later]);
    const first = await feed.read(orgId, { position: 0, limit: 1, nowSeconds: now });

    const onTime = await feed.read(orgId, { position: first.position, limit: 10, nowSeconds: now });
    const behind = await feed.read(orgId, { position: first.position, limit: 10, nowSeconds: now + 10 });
    const fromStart = await feed.read(orgId, { position: 0, limit: 10, nowSeconds: now + 10 });
    const otherTypes = await feed.read(orgId, {
      position: first.position,
      limit: 10,
      types: new Set(['report.failed']),
      nowSeconds: now + 10,
    });

    expect(first).toMatchObject({ position: 1, expired: false });
    expect(onTime.entries.map((item) => item.eventId)).toEqual([unread.eventId, later.eventId]);
    expect(behind).toEqual({ entries: [], position: 1, done: false, expired: true, passing: false });
    expect(fromStart).toMatchObject({ position: 1, done: false, expired: false });
    expect(fromStart.entries.map((item) => item.eventId)).toEqual([read.eventId]);
    expect(otherTypes).toMatchObject({ entries: [], position: 1, expired: true });
  });

  it('takes a sequence the retention removed (TTL) for one no longer kept, and passes over it only from the oldest', async () => {
    const orgId = 'org-removed';
    const feed = new DynamoEventFeed(table.db, table.tableName);
    const now = Math.floor(Date.now() / 1000);
    const removed = [entry('removed'), entry('removed')];
    const kept = entry('kept');
    await feed.append(orgId, [...removed, kept]);
    for (const seq of [1, 2]) {
      await table.db.send(new DeleteCommand({ TableName: table.tableName, Key: feedKeys.event(orgId, seq) }));
    }

    const behind = await feed.read(orgId, { position: 0, limit: 10, nowSeconds: now });
    const fromOldest = await feed.read(orgId, { position: 0, fromOldest: true, limit: 10, nowSeconds: now });

    expect(behind).toMatchObject({ entries: [], position: 0, expired: true });
    expect(fromOldest).toMatchObject({ position: 3, done: true, expired: false });
    expect(fromOldest.entries.map((item) => item.eventId)).toEqual([kept.eventId]);
  });
});
