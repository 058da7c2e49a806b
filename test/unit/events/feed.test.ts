import { describe, expect, it } from 'vitest';
import { encodeCursor } from '#shared/domain/cursor';
import { appendToFeed, BatchingAppender, EVENT_FEED_QUEUE, feedMessage, readFeed } from '#shared/domain/events/feed';
import { DomainError, ValidationError } from '#shared/errors';
import type { CursorKeys } from '#shared/ports/cursor-key';
import type { EventFeed, FeedEntry, FeedPage } from '#shared/ports/event-feed';

const ORG = 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe';
const KEY = new Uint8Array(32).fill(7);
const RETENTION = 3600;

const OTHER_KEY = new Uint8Array(32).fill(9);

function reader(page: Partial<FeedPage> = {}) {
  const reads: { position: number; fromOldest?: boolean; limit: number; types?: ReadonlySet<string> }[] = [];
  let now = Date.parse('2026-11-24T10:00:00.000Z');
  const keys: { cached: CursorKeys; stored: CursorKeys } = { cached: { current: KEY }, stored: { current: KEY } };
  const deps = {
    config: { events: { retentionSeconds: RETENTION } },
    clock: { now: () => new Date(now) },
    cursorKey: {
      get: async () => keys.cached.current,
      keys: async (options: { refresh?: boolean } = {}) => {
        if (options.refresh) keys.cached = keys.stored;
        return keys.cached;
      },
    },
    feed: {
      read: async (_orgId: string, options: (typeof reads)[number]) => {
        reads.push(options);
        return { entries: [], position: 0, done: true, expired: false, passing: false, ...page };
      },
    },
  };
  return {
    deps,
    reads,
    keys,
    advance: (ms: number) => (now += ms),
    /** A rotation as the secret sees it at once, and a container only once it reads it again. */
    rotate: (to: Uint8Array) => {
      keys.stored = { current: to, previous: { key: keys.stored.current, replacedAt: new Date(now) } };
    },
  };
}

describe('readFeed', () => {
  it('starts at the oldest event without an iterator and goes on after the position it hands out', async () => {
    const { deps, reads } = reader({
      entries: [
        {
          seq: 4,
          eventId: 'evt_1',
          type: 'group.deleted',
          timestamp: 't',
          body: '{"type":"group.deleted"}',
          expiresAt: 1,
        },
      ],
      position: 9,
      done: false,
    });

    const first = await readFeed(deps, { orgId: ORG, limit: 5, types: ['group.deleted'] });
    await readFeed(deps, { orgId: ORG, limit: 5, types: ['group.deleted'], iterator: first.iterator });

    expect(first).toMatchObject({
      events: [{ eventId: 'evt_1', type: 'group.deleted', timestamp: 't', data: { type: 'group.deleted' } }],
      done: false,
    });
    expect(reads.map((read) => [read.position, read.fromOldest, read.limit, read.types && [...read.types]])).toEqual([
      [0, true, 5, ['group.deleted']],
      [9, false, 5, ['group.deleted']],
    ]);
  });

  it('refuses an iterator older than EVENT_RETENTION_SECONDS with ITERATOR_EXPIRED, and accepts it until then', async () => {
    const { deps, advance } = reader();
    const { iterator } = await readFeed(deps, { orgId: ORG, limit: 5 });

    advance(RETENTION * 1000);
    await expect(readFeed(deps, { orgId: ORG, limit: 5, iterator })).resolves.toBeDefined();
    advance(1);
    const expired = readFeed(deps, { orgId: ORG, limit: 5, iterator });

    await expect(expired).rejects.toBeInstanceOf(DomainError);
    await expect(expired).rejects.toMatchObject({ code: 'ITERATOR_EXPIRED' });
  });

  it('refuses a fresh iterator with ITERATOR_EXPIRED when the event after its position is no longer kept', async () => {
    const { deps } = reader({ position: 3, done: false });
    const { iterator } = await readFeed(deps, { orgId: ORG, limit: 5 });
    const behind = {
      ...deps,
      feed: { read: async () => ({ ...(await deps.feed.read(ORG, {} as never)), expired: true }) },
    };

    const refused = readFeed(behind, { orgId: ORG, limit: 5, iterator });

    await expect(refused).rejects.toMatchObject({ code: 'ITERATOR_EXPIRED' });
  });

  it('goes on passing over the expired start of the feed when a page stopped there', async () => {
    const { deps, reads } = reader({ position: 1000, done: false, passing: true });

    const { iterator } = await readFeed(deps, { orgId: ORG, limit: 5 });
    await readFeed(deps, { orgId: ORG, limit: 5, iterator });

    expect(reads.map((read) => [read.position, read.fromOldest])).toEqual([
      [0, true],
      [1000, true],
    ]);
  });

  it("refuses another organisation's iterator and an altered one at #/query/iterator", async () => {
    const { deps } = reader();
    const { iterator } = await readFeed(deps, { orgId: ORG, limit: 5 });

    const foreign = readFeed(deps, { orgId: 'another', limit: 5, iterator });
    const altered = readFeed(deps, { orgId: ORG, limit: 5, iterator: `x${iterator}` });

    await expect(foreign).rejects.toBeInstanceOf(ValidationError);
    await expect(foreign).rejects.toMatchObject({ errors: [{ pointer: '#/query/iterator' }] });
    await expect(altered).rejects.toMatchObject({ errors: [{ pointer: '#/query/iterator' }] });
  });

  it('binds an iterator to its types, in any order: other types or none are refused at #/query/iterator', async () => {
    const { deps } = reader();
    const { iterator } = await readFeed(deps, { orgId: ORG, limit: 5, types: ['group.deleted', 'group.updated'] });
    const untyped = await readFeed(deps, { orgId: ORG, limit: 5 });

    const reordered = readFeed(deps, { orgId: ORG, limit: 5, types: ['group.updated', 'group.deleted'], iterator });
    const without = readFeed(deps, { orgId: ORG, limit: 5, iterator });
    const other = readFeed(deps, { orgId: ORG, limit: 5, types: ['group.deleted'], iterator });
    const added = readFeed(deps, { orgId: ORG, limit: 5, types: ['group.deleted'], iterator: untyped.iterator });

    await expect(reordered).resolves.toBeDefined();
    for (const refused of [without, other, added]) {
      await expect(refused).rejects.toMatchObject({ errors: [{ pointer: '#/query/iterator' }] });
    }
  });

  it('opens an iterator sealed before a cursor-key rotation for EVENT_RETENTION_SECONDS after it, sealing anew with the new key', async () => {
    const { deps, rotate, keys, advance } = reader();
    const { iterator: before } = await readFeed(deps, { orgId: ORG, limit: 5 });
    const { iterator: kept } = await readFeed(deps, { orgId: ORG, limit: 5 });
    rotate(OTHER_KEY);
    keys.cached = keys.stored;

    advance(RETENTION * 1000 - 1);
    const resumed = await readFeed(deps, { orgId: ORG, limit: 5, iterator: before });
    const sealedAnew = await readFeed(deps, { orgId: ORG, limit: 5, iterator: resumed.iterator });
    const closedAt = advance(5 * 60_000 + 2);
    const late = readFeed(deps, { orgId: ORG, limit: 5, iterator: kept });
    const posingAsFresh = encodeCursor(KEY, { s: 0, t: closedAt }, ['events', ORG]) as string;
    const forged = readFeed(deps, { orgId: ORG, limit: 5, iterator: posingAsFresh });

    expect(sealedAnew).toBeDefined();
    expect(resumed.iterator.split('.')[1]).not.toBe(before.split('.')[1]);
    await expect(late).rejects.toMatchObject({ code: 'ITERATOR_EXPIRED' });
    await expect(forged).rejects.toMatchObject({ code: 'ITERATOR_EXPIRED' });
  });

  it('reads the keys again before refusing an iterator sealed with a key this container has not read yet', async () => {
    const fresh = reader();
    fresh.rotate(OTHER_KEY);
    fresh.keys.cached = fresh.keys.stored;
    const { iterator } = await readFeed(fresh.deps, { orgId: ORG, limit: 5 });
    const stale = reader();
    stale.rotate(OTHER_KEY);

    const opened = await readFeed(stale.deps, { orgId: ORG, limit: 5, iterator });

    expect(opened).toBeDefined();
    expect(stale.keys.cached.current).toEqual(OTHER_KEY);
  });
});

describe('appendToFeed with the BatchingAppender', () => {
  it('appends the webhook body without event_id, one append per organisation for the events offered together', async () => {
    const appends: [string, FeedEntry[]][] = [];
    const feed: Pick<EventFeed, 'append'> = {
      append: async (orgId, entries) => {
        appends.push([orgId, entries]);
        return entries.length;
      },
    };
    const deps = {
      config: { events: { retentionSeconds: RETENTION } },
      clock: { now: () => new Date('2026-11-24T10:00:00.000Z') },
      appender: new BatchingAppender(feed),
    };
    const event = (eventId: string, orgId: string) => ({
      'detail-type': 'group.deleted',
      detail: { event_id: eventId, type: 'group.deleted', timestamp: 't', organisation_id: orgId, chat_id: 'c' },
    });

    await Promise.all([
      appendToFeed(deps, event('e1', 'a')),
      appendToFeed(deps, event('e2', 'a')),
      appendToFeed(deps, event('e3', 'b')),
    ]);

    expect(appends.map(([orgId, entries]) => [orgId, entries.map((entry) => entry.eventId)])).toEqual([
      ['a', ['e1', 'e2']],
      ['b', ['e3']],
    ]);
    expect(appends[0]![1][0]).toEqual({
      eventId: 'e1',
      type: 'group.deleted',
      timestamp: 't',
      body: '{"type":"group.deleted","timestamp":"t","organisation_id":"a","chat_id":"c"}',
      expiresAt: Date.parse('2026-11-24T10:00:00.000Z') / 1000 + RETENTION,
    });
  });

  it("forwards a bus event as an append job in its organisation's group, and appends the job (issue 35)", async () => {
    const sent: [string, unknown][] = [];
    const appended: string[] = [];
    const deps = {
      config: { events: { retentionSeconds: RETENTION } },
      clock: { now: () => new Date('2026-11-24T10:00:00.000Z') },
      appender: {
        offer: async (orgId: string, entry: { eventId: string }) => void appended.push(`${orgId} ${entry.eventId}`),
      },
      queue: { send: async (queue: string, body: unknown) => void sent.push([queue, body]) },
    };
    const busEvent = {
      'detail-type': 'group.deleted',
      detail: { event_id: 'e1', type: 'group.deleted', timestamp: 't', organisation_id: 'a', chat_id: 'c' },
    };

    await feedMessage(deps, busEvent);
    await feedMessage(deps, { 'detail-type': 'group.deleted', detail: { event_id: 'e2' } });

    // Nothing is appended on the event's first pass: it goes back in its organisation's group (its orgId).
    expect(appended).toEqual([]);
    expect(sent).toEqual([[EVENT_FEED_QUEUE, { kind: 'append', orgId: 'a', event: busEvent }]]);
    await feedMessage(deps, sent[0]![1] as Parameters<typeof feedMessage>[1]);
    expect(appended).toEqual(['a e1']);
  });

  it('fails every offer of a failed append, so that each record is retried', async () => {
    const appender = new BatchingAppender({ append: async () => Promise.reject(new Error('throttled')) });
    const entry = { eventId: 'e', type: 't', timestamp: 't', body: '{}', expiresAt: 1 };

    const offers = [appender.offer('a', entry), appender.offer('a', { ...entry, eventId: 'f' })];

    await expect(Promise.all(offers)).rejects.toThrow('throttled');
    await expect(offers[1]).rejects.toThrow('throttled');
  });
});
