import { describe, expect, it } from 'vitest';
import { EVENT_EXAMPLES } from '#shared/openapi/examples';
import { createWpCrmClient, events, type FeedEvent, WpCrmError } from '../../../clients/typescript/src/index.ts';

const ORG = 'e4c4c399-93bc-4d79-aadf-6968fa1c7bbe';
const event = (eventId: string): FeedEvent => ({
  eventId,
  type: 'group.deleted',
  timestamp: '2026-11-24T09:30:00.000Z',
  data: EVENT_EXAMPLES['group.deleted'] as FeedEvent['data'],
});

/** A feed of three pages served by a fake fetch; records each request's query. */
function fakeFeed() {
  const queries: Record<string, string>[] = [];
  const pages: Record<string, { events: FeedEvent[]; iterator: string; done: boolean }> = {
    '': { events: [event('evt_1'), event('evt_2')], iterator: 'it-2', done: false },
    'it-2': { events: [event('evt_3')], iterator: 'it-3', done: false },
    'it-3': { events: [], iterator: 'it-3b', done: true },
  };
  const fetch = async (request: Request) => {
    const url = new URL(request.url);
    queries.push(Object.fromEntries(url.searchParams));
    if (url.searchParams.get('iterator') === 'expired') {
      return Response.json({ status: 410, code: 'ITERATOR_EXPIRED' }, { status: 410 });
    }
    return Response.json(pages[url.searchParams.get('iterator') ?? '']);
  };
  return { client: createWpCrmClient({ baseUrl: 'http://127.0.0.1:3000', token: 'tok', fetch }), queries };
}

describe('@wp-crm/client events (CONTRACT §20)', () => {
  it('walks the feed page after page until done, and exposes the iterator to resume from', async () => {
    const { client, queries } = fakeFeed();

    const walk = events(client, ORG, { types: ['group.deleted', 'group.created'], limit: 2 });
    const seen: string[] = [];
    for await (const item of walk) seen.push(item.eventId);

    expect(seen).toEqual(['evt_1', 'evt_2', 'evt_3']);
    expect(walk.iterator).toBe('it-3b');
    expect(queries).toEqual([
      { types: 'group.deleted,group.created', limit: '2' },
      { iterator: 'it-2', types: 'group.deleted,group.created', limit: '2' },
      { iterator: 'it-3', types: 'group.deleted,group.created', limit: '2' },
    ]);
  });

  it("resumes from a saved iterator, and a walk stopped mid-page keeps that page's start", async () => {
    const { client } = fakeFeed();

    const resumed: string[] = [];
    for await (const item of events(client, ORG, { iterator: 'it-2' })) resumed.push(item.eventId);
    const stopped = events(client, ORG);
    for await (const item of stopped) if (item.eventId === 'evt_1') break;

    expect(resumed).toEqual(['evt_3']);
    expect(stopped.iterator).toBeUndefined();
  });

  it('throws WpCrmError with the problem document, e.g. 410 ITERATOR_EXPIRED', async () => {
    const { client } = fakeFeed();

    const walking = (async () => {
      for await (const _ of events(client, ORG, { iterator: 'expired' })) break;
    })();

    await expect(walking).rejects.toBeInstanceOf(WpCrmError);
    await expect(walking).rejects.toMatchObject({ status: 410, problem: { code: 'ITERATOR_EXPIRED' } });
  });
});
