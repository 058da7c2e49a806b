import { describe, expect, it } from 'vitest';
import { appendToFeed, BatchingAppender, EVENT_FEED_QUEUE, feedMessage, readFeed } from '#shared/domain/events/feed';
import { DomainError, ValidationError } from '#shared/errors';
import type { EventFeed, FeedEntry, FeedPage } from '#shared/ports/event-feed';

const ORG = 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe';
const KEY = new Uint8Array(32).fill(7);
const RETENTION = 3600;

function reader(page: FeedPage = { entries: [], position: 0, done: true }) {
  const reads: { position: number; limit: number; types?: ReadonlySet<string> }[] = [];
  let now = Date.parse('2026-11-24T10:00:00.000Z');
  const deps = {
    config: { events: { retentionSeconds: RETENTION } },
    clock: { now: () => new Date(now) },
    cursorKey: { get: async () => KEY },
    feed: {
      read: async (_orgId: string, options: { position: number; limit: number; types?: ReadonlySet<string> }) => {
        reads.push(options);
        return page;
      },
    },
  };
  return { deps, reads, advance: (ms: number) => (now += ms) };
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
    await readFeed(deps, { orgId: ORG, limit: 5, iterator: first.iterator });

    expect(first).toMatchObject({
      events: [{ eventId: 'evt_1', type: 'group.deleted', timestamp: 't', data: { type: 'group.deleted' } }],
      done: false,
    });
    expect(reads.map((read) => [read.position, read.limit, read.types && [...read.types]])).toEqual([
      [0, 5, ['group.deleted']],
      [9, 5, undefined],
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

  it("refuses another organisation's iterator and an altered one at #/query/iterator", async () => {
    const { deps } = reader();
    const { iterator } = await readFeed(deps, { orgId: ORG, limit: 5 });

    const foreign = readFeed(deps, { orgId: 'another', limit: 5, iterator });
    const altered = readFeed(deps, { orgId: ORG, limit: 5, iterator: `x${iterator}` });

    await expect(foreign).rejects.toBeInstanceOf(ValidationError);
    await expect(foreign).rejects.toMatchObject({ errors: [{ pointer: '#/query/iterator' }] });
    await expect(altered).rejects.toMatchObject({ errors: [{ pointer: '#/query/iterator' }] });
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
