import {
  BatchGetCommand,
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { EventFeed, FeedEntry, FeedPage, SequencedEntry } from '#shared/ports/event-feed';
import { isConditionalCheckFailed } from './client.ts';
import { feedKeys, feedSortKey } from './keys.ts';

/** A head commit lost to another writer is retried this often (each time after re-reading the head). */
const MAX_COMMIT_ATTEMPTS = 40;
/** Committed entries the head may hold before a writer writes them out first (DynamoDB items stop at 400 KB). */
const MAX_PENDING_BYTES = 192 * 1024;
/** A pending entry older than this was left by a writer that stopped: the next writer writes it out. */
const STRANDED_AFTER_MS = 5_000;
/** Items a read looks at, at most, before it answers (a narrow `types` filter over a long feed). */
const MAX_SCANNED = 1_000;
const PAGE_SIZE = 100;

interface PendingEntry extends FeedEntry {
  committedAt: number;
}

interface Head {
  seq: number;
  version: number;
  pending: Record<string, PendingEntry>;
  exists: boolean;
}

/**
 * The event feed on DynamoDB with single-item conditional writes only (the local stack's dynalite has no
 * TransactWriteItems; docs/architecture.md: "The events feed"). The head item is the commit point:
 * 1. A writer reads the head (strongly consistent), drops the events already appended — in the head's pending map
 *    or marked by their id (one batched read of the markers) — and commits the rest in ONE UpdateItem that
 *    compares-and-sets the sequence alone: it advances by their number and they enter the pending map at
 *    seq+1…seq+n. A lost race re-reads and retries. Only a commit moves the sequence, so only another commit makes a
 *    commit lose: a writer that read the head before an event it offers was committed by another always loses.
 * 2. It then writes each as an item at its sequence and a marker for its id (idempotent puts, 25 to a batched
 *    write), and only then removes them from the pending map — a write that leaves the sequence alone, so it never
 *    makes a concurrent commit lose (issue 35: a head taking hundreds of commits a second lost most of them to
 *    these clean-ups).
 * A reader reads the head first (its sequence H and pending map), then queries the items up to H: every sequence
 * ≤ H is in the pending map or, having left it, already an item — so a read returns a gap-free prefix and nothing
 * after H, whatever the writers do meanwhile.
 */
export class DynamoEventFeed implements EventFeed {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
  ) {}

  async append(orgId: string, entries: FeedEntry[]): Promise<number> {
    const offered = [...new Map(entries.map((entry) => [entry.eventId, entry])).values()];
    const offeredIds = new Set(offered.map((entry) => entry.eventId));
    let appended = 0;
    for (let attempt = 0; attempt < MAX_COMMIT_ATTEMPTS; attempt += 1) {
      const head = await this.#head(orgId);
      const pendingIds = new Set(Object.values(head.pending).map((entry) => entry.eventId));
      const unseen = offered.filter((entry) => !pendingIds.has(entry.eventId));
      // Markers are read after the head: an event that left the pending map before the head was read has its marker.
      const marked = await this.#marked(
        orgId,
        unseen.map((entry) => entry.eventId),
      );
      const fresh = unseen.filter((entry) => !marked.has(entry.eventId));
      const ours = (entry: PendingEntry) =>
        offeredIds.has(entry.eventId) || this.now() - entry.committedAt > STRANDED_AFTER_MS;
      if (fresh.length === 0) {
        await this.#writeOut(orgId, pendingOf(head, ours));
        return appended;
      }
      const room = MAX_PENDING_BYTES - sizeOf(head.pending);
      if (room < sizeOf([fresh[0]]) && Object.keys(head.pending).length > 0) {
        await this.#writeOut(
          orgId,
          pendingOf(head, () => true),
        );
        continue;
      }
      // As many as fit in the head (at least one); the rest go in the next round, after these.
      let fit = 1;
      while (fit < fresh.length && sizeOf(fresh.slice(0, fit + 1)) <= room) fit += 1;
      const committedAt = this.now();
      const added: [number, PendingEntry][] = fresh
        .slice(0, fit)
        .map((entry, index) => [head.seq + index + 1, { ...entry, committedAt }]);
      if (await this.#commit(orgId, head, added)) {
        await this.#writeOut(orgId, [...pendingOf(head, ours), ...added]);
        appended += fit;
        if (fit === fresh.length) return appended;
        attempt = -1;
        continue;
      }
      // Another writer committed first: back off a little (more with each loss) and read the head again.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(200, 5 * 2 ** attempt)));
    }
    throw new Error(`the event feed of ${orgId} stayed contended for ${MAX_COMMIT_ATTEMPTS} attempts`);
  }

  async read(
    orgId: string,
    options: { position: number; fromOldest?: boolean; limit: number; types?: ReadonlySet<string>; nowSeconds: number },
  ): Promise<FeedPage> {
    const head = await this.#head(orgId);
    const entries: SequencedEntry[] = [];
    let position = options.position;
    // A reader from the oldest passes over what the retention removed, until the first sequence still kept.
    let passing = options.fromOldest === true;
    // A sequence after the position that is no longer kept: the page ends before it (expired when it is the first).
    const lost = (): FeedPage => ({ entries, position, done: false, expired: entries.length === 0, passing: false });
    let scanned = 0;
    while (position < head.seq && entries.length < options.limit && scanned < MAX_SCANNED) {
      const result = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
          ExpressionAttributeValues: {
            ':pk': feedKeys.partition(orgId),
            ':from': feedSortKey(position + 1),
            ':to': feedSortKey(head.seq),
          },
          ConsistentRead: true,
          Limit: PAGE_SIZE,
        }),
      );
      const items = (result.Items ?? []) as (SequencedEntry & Record<string, unknown>)[];
      scanned += items.length;
      // The items read cover every sequence up to the last one when the query stopped early, else up to the head.
      const upTo = result.LastEvaluatedKey && items.length > 0 ? Number(items[items.length - 1]!.seq) : head.seq;
      const bySeq = new Map<number, FeedEntry>();
      for (const [seq, entry] of Object.entries(head.pending)) {
        if (Number(seq) > position && Number(seq) <= upTo) bySeq.set(Number(seq), entry);
      }
      for (const item of items) bySeq.set(Number(item.seq), item);
      let full = false;
      for (const seq of [...bySeq.keys()].sort((a, b) => a - b)) {
        const entry = bySeq.get(seq)!;
        // Every sequence up to `upTo` is an item or pending: one with neither was removed by the retention (TTL).
        const gone = seq > position + 1 || entry.expiresAt <= options.nowSeconds;
        if (gone && !passing) return lost();
        if (gone && entry.expiresAt <= options.nowSeconds) {
          position = seq;
          continue;
        }
        passing = false;
        position = seq;
        if (options.types && !options.types.has(entry.type)) continue;
        entries.push(toEntry(seq, entry));
        if (entries.length === options.limit) {
          full = true;
          break;
        }
      }
      if (!full && position < upTo) {
        if (!passing) return lost();
        position = upTo;
      }
    }
    const done = position >= head.seq;
    return { entries, position, done, expired: false, passing: passing && !done };
  }

  async #head(orgId: string): Promise<Head> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: feedKeys.head(orgId), ConsistentRead: true }),
    );
    if (!Item) return { seq: 0, version: 0, pending: {}, exists: false };
    return {
      seq: Number(Item.seq),
      version: Number(Item.version),
      pending: (Item.pending ?? {}) as Record<string, PendingEntry>,
      exists: true,
    };
  }

  /** The event ids among `eventIds` that have their marker: batched reads of up to 100 markers each (consistent). */
  async #marked(orgId: string, eventIds: string[]): Promise<Set<string>> {
    const marked = new Set<string>();
    const byKey = new Map(eventIds.map((eventId) => [feedKeys.marker(orgId, eventId).SK, eventId]));
    for (let start = 0; start < eventIds.length; start += MARKERS_PER_READ) {
      let keys: Record<string, unknown>[] = eventIds
        .slice(start, start + MARKERS_PER_READ)
        .map((eventId) => feedKeys.marker(orgId, eventId));
      for (let round = 0; keys.length > 0; round++) {
        if (round === MAX_BATCH_ROUNDS) throw new Error(`the event feed of ${orgId}: markers left unread`);
        if (round > 0) await backoff(round);
        const result = await this.db.send(
          new BatchGetCommand({
            RequestItems: {
              [this.tableName]: { Keys: keys, ConsistentRead: true, ProjectionExpression: 'PK, SK' },
            },
          }),
        );
        for (const item of result.Responses?.[this.tableName] ?? []) {
          const eventId = byKey.get(String(item.SK));
          if (eventId !== undefined) marked.add(eventId);
        }
        keys = result.UnprocessedKeys?.[this.tableName]?.Keys ?? [];
      }
    }
    return marked;
  }

  /**
   * The commit: one write of the head that compares-and-sets the sequence read (the version is still advanced, for
   * a writer of an earlier release that compares it). False when another writer committed first.
   */
  async #commit(orgId: string, head: Head, added: [number, PendingEntry][]): Promise<boolean> {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':seq': head.seq + added.length, ':version': head.version + 1 };
    let update: string;
    let condition: string;
    if (head.exists) {
      const sets = added.map(([seq, entry], index) => {
        names[`#p${index}`] = String(seq);
        values[`:p${index}`] = entry;
        return `pending.#p${index} = :p${index}`;
      });
      update = `SET seq = :seq, version = :version, ${sets.join(', ')}`;
      condition = 'seq = :read';
      values[':read'] = head.seq;
    } else {
      update = 'SET seq = :seq, version = :version, pending = :pending';
      condition = 'attribute_not_exists(PK)';
      values[':pending'] = Object.fromEntries(added.map(([seq, entry]) => [String(seq), entry]));
    }
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: feedKeys.head(orgId),
          UpdateExpression: update,
          ConditionExpression: condition,
          ExpressionAttributeNames: Object.keys(names).length > 0 ? names : undefined,
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }

  /**
   * Writes committed entries out as items with their markers (the same content whoever writes them, so a repeat is
   * harmless; batched writes of 25), then takes them out of the head, leaving its sequence alone.
   */
  async #writeOut(orgId: string, committed: [number, PendingEntry][]): Promise<void> {
    if (committed.length === 0) return;
    const items = committed.flatMap(([seq, entry]) => {
      const { committedAt, ...kept } = entry;
      return [
        { ...feedKeys.event(orgId, seq), seq, ...kept, ttl: entry.expiresAt },
        { ...feedKeys.marker(orgId, entry.eventId), seq, ttl: entry.expiresAt },
      ];
    });
    const batches: Record<string, unknown>[][] = [];
    for (let start = 0; start < items.length; start += ITEMS_PER_WRITE) {
      batches.push(items.slice(start, start + ITEMS_PER_WRITE));
    }
    await limited(batches, (batch) => this.#putAll(orgId, batch));
    const names = Object.fromEntries(committed.map(([seq], index) => [`#p${index}`, String(seq)]));
    const trimmed = this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: feedKeys.head(orgId),
        UpdateExpression: `REMOVE ${committed.map((_, index) => `pending.#p${index}`).join(', ')}`,
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: names,
      }),
    );
    // No head: the organisation's feed was erased meanwhile (CONTRACT §17); there is nothing to take them out of.
    await trimmed.catch((error: unknown) => {
      if (!isConditionalCheckFailed(error)) throw error;
    });
  }

  /** One batched write of up to 25 puts, its unprocessed items written again after a backoff. */
  async #putAll(orgId: string, items: Record<string, unknown>[]): Promise<void> {
    let requests = items.map((item) => ({ PutRequest: { Item: item } }));
    for (let round = 0; requests.length > 0; round++) {
      if (round === MAX_BATCH_ROUNDS) throw new Error(`the event feed of ${orgId}: items left unwritten`);
      if (round > 0) await backoff(round);
      const result = await this.db.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: requests } }));
      requests = (result.UnprocessedItems?.[this.tableName] ?? []) as typeof requests;
    }
  }
}

/** Markers one batched read asks for (BatchGetItem's limit). */
const MARKERS_PER_READ = 100;
/** Puts one batched write carries (BatchWriteItem's limit). */
const ITEMS_PER_WRITE = 25;
/** A batched call whose items are still left over (throttling) after this many rounds fails the append. */
const MAX_BATCH_ROUNDS = 8;

const backoff = (round: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(1_000, 25 * 2 ** round)));

function pendingOf(head: Head, keep: (entry: PendingEntry) => boolean): [number, PendingEntry][] {
  return Object.entries(head.pending)
    .filter(([, entry]) => keep(entry))
    .map(([seq, entry]) => [Number(seq), entry]);
}

const sizeOf = (entries: object) => Buffer.byteLength(JSON.stringify(entries));

/** Item calls in flight at once per append: a batch of 100 events is 200 puts, not 200 connections at once. */
const CONCURRENT_CALLS = 10;

/** `call` for every item, at most CONCURRENT_CALLS at a time; the results in the items' order. */
async function limited<T, R>(items: readonly T[], call: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await call(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_CALLS, items.length) }, worker));
  return results;
}

function toEntry(seq: number, entry: FeedEntry): SequencedEntry {
  return {
    seq,
    eventId: entry.eventId,
    type: entry.type,
    timestamp: entry.timestamp,
    body: entry.body,
    expiresAt: Number(entry.expiresAt),
  };
}
