import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { startLocalStack } from '#infra/local/stack';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { DynamoEventFeed } from '#shared/adapters/dynamodb/event-feed';
import { feedKeys } from '#shared/adapters/dynamodb/keys';
import { eventPublisher } from '#shared/config/eventbridge';
import type { FeedEntry } from '#shared/ports/event-feed';
import { eventually, TEST_STACK_ENV, type TestStack, useLocalStack } from '#test/support/local-stack';

interface FeedPage {
  events: { eventId: string; type: string }[];
  iterator: string;
  done: boolean;
}

let serial = 0;

/** A group.deleted event of `orgId` as the feed keeps it, expiring at `expiresAt` (Unix seconds). */
function feedEntry(orgId: string, expiresAt: number): FeedEntry {
  serial += 1;
  const eventId = `evt_iter_${orgId.slice(0, 8)}_${serial}`;
  const timestamp = new Date().toISOString();
  const body = { type: 'group.deleted', timestamp, organisation_id: orgId, chat_id: `cht_iter${serial}` };
  return { eventId, type: 'group.deleted', timestamp, body: JSON.stringify(body), expiresAt };
}

const inAMonth = () => Math.floor(Date.now() / 1000) + 30 * 86_400;

async function feed(api: Pick<TestStack, 'call'>, token: string, orgId: string, query: Record<string, string>) {
  return api.call(`/events/${orgId}?${new URLSearchParams(query)}`, { token });
}

async function page(api: Pick<TestStack, 'call'>, token: string, orgId: string, query: Record<string, string>) {
  const response = await feed(api, token, orgId, query);
  if (response.status !== 200) throw new Error(`feed: ${response.status} ${await response.text()}`);
  return (await response.json()) as FeedPage;
}

describe('events feed iterators (CONTRACT §20, §21)', () => {
  const api = useLocalStack();
  /** The feed of the stack's table, for writing events appended long ago and removing them as the retention does. */
  const table = () => {
    const { endpoints, tableName, credentials } = api.stack.info;
    const db = createDocumentClient({ region: 'eu-west-1', endpoint: endpoints.dynamodb, credentials });
    return { db, tableName, feed: new DynamoEventFeed(db, tableName) };
  };

  it('answers every page with Cache-Control: no-store (group.created bodies carry invite links)', async () => {
    const tenant = await api.newOrg('Feed no-store', ['CRM_BOT']);
    const { db, feed: events } = table();
    await events.append(tenant.orgId, [feedEntry(tenant.orgId, inAMonth())]);
    db.destroy();

    const first = await feed(api, tenant.token, tenant.orgId, {});
    const { iterator } = (await first.clone().json()) as FeedPage;
    const next = await feed(api, tenant.token, tenant.orgId, { iterator });

    expect([first.status, next.status]).toEqual([200, 200]);
    expect([first.headers.get('cache-control'), next.headers.get('cache-control')]).toEqual(['no-store', 'no-store']);
  });

  it('binds an iterator to the types it was made with: other types, none, or types added → 400 at #/query/iterator', async () => {
    const tenant = await api.newOrg('Feed types binding', ['CRM_BOT']);
    const typed = await page(api, tenant.token, tenant.orgId, { types: 'group.deleted,report.failed' });
    const untyped = await page(api, tenant.token, tenant.orgId, {});

    const queries: Record<string, string>[] = [
      { types: 'report.failed,group.deleted', iterator: typed.iterator },
      { types: 'group.deleted', iterator: typed.iterator },
      { iterator: typed.iterator },
      { types: 'group.deleted', iterator: untyped.iterator },
    ];
    const attempts = await Promise.all(
      queries.map(async (query) => {
        const response = await feed(api, tenant.token, tenant.orgId, query);
        const body = (await response.json()) as { code?: string; errors?: { pointer: string }[] };
        return [response.status, body.code, body.errors?.[0]?.pointer];
      }),
    );

    expect(attempts).toEqual([
      [200, undefined, undefined],
      [400, 'VALIDATION_FAILED', '#/query/iterator'],
      [400, 'VALIDATION_FAILED', '#/query/iterator'],
      [400, 'VALIDATION_FAILED', '#/query/iterator'],
    ]);
  });

  it('answers 410 ITERATOR_EXPIRED to a reader with a fresh iterator whose next event expired unread, never a page without it', async () => {
    const tenant = await api.newOrg('Feed behind', ['CRM_BOT']);
    const { db, feed: events } = table();
    // Appended long ago: the two expire in a few seconds, the one after them in a month.
    const soon = Math.floor(Date.now() / 1000) + 3;
    const read = feedEntry(tenant.orgId, soon);
    const unread = feedEntry(tenant.orgId, soon);
    const later = feedEntry(tenant.orgId, inAMonth());
    await events.append(tenant.orgId, [read, unread, later]);
    db.destroy();
    const first = await page(api, tenant.token, tenant.orgId, { limit: '1' });

    const refused = await eventually(
      async () => {
        const response = await feed(api, tenant.token, tenant.orgId, { iterator: first.iterator });
        if (response.status === 200) {
          const served = (await response.json()) as FeedPage;
          // Until it expires the event is served; once it has, a page without it would be a silent skip.
          if (served.events[0]?.eventId !== unread.eventId) return { status: 200, skipped: served.events };
          throw new Error('the unread event is still kept');
        }
        return { status: response.status, body: await response.json() };
      },
      { timeoutMs: 20_000 },
    );
    const restarted = await page(api, tenant.token, tenant.orgId, {});

    expect(first.events.map((event) => event.eventId)).toEqual([read.eventId]);
    expect(refused).toEqual({ status: 410, body: expect.objectContaining({ code: 'ITERATOR_EXPIRED' }) });
    expect(restarted.events.map((event) => event.eventId)).toEqual([later.eventId]);
  });

  it('answers 410 ITERATOR_EXPIRED when the events after the iterator were removed by the retention (TTL)', async () => {
    const tenant = await api.newOrg('Feed removed', ['CRM_BOT']);
    const { db, tableName, feed: events } = table();
    const entries = [feedEntry(tenant.orgId, inAMonth()), feedEntry(tenant.orgId, inAMonth())];
    await events.append(tenant.orgId, entries);
    const first = await page(api, tenant.token, tenant.orgId, { limit: '1' });
    const caughtUp = await page(api, tenant.token, tenant.orgId, { iterator: first.iterator });
    await events.append(tenant.orgId, [feedEntry(tenant.orgId, inAMonth()), feedEntry(tenant.orgId, inAMonth())]);
    for (const seq of [1, 2]) {
      await db.send(new DeleteCommand({ TableName: tableName, Key: feedKeys.event(tenant.orgId, seq) }));
    }
    db.destroy();

    const behind = await feed(api, tenant.token, tenant.orgId, { iterator: first.iterator });
    const keptUp = await page(api, tenant.token, tenant.orgId, { iterator: caughtUp.iterator });

    expect(behind.status).toBe(410);
    expect(await behind.json()).toMatchObject({ status: 410, code: 'ITERATOR_EXPIRED' });
    expect(keptUp.events).toHaveLength(2);
  });
});

describe('events feed iterators across a rotation of the cursor key (CONTRACT §20)', () => {
  it('reads on from an iterator saved before the rotation with the replaced key; list cursors take the new key only', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'wpcrm-cursor-rotation-'));
    const before = { CURSOR_SIGNING_KEY: 'k'.repeat(40) };
    const after = { CURSOR_SIGNING_KEY: 'n'.repeat(40), CURSOR_PREVIOUS_SIGNING_KEY: 'k'.repeat(40) };
    const env = (keys: Record<string, string>) => ({
      ...process.env,
      ...TEST_STACK_ENV,
      WPCRM_DATA_DIR: dataDir,
      ...keys,
    });
    const publish = (orgId: string, eventId: string) =>
      eventPublisher().publish([
        {
          eventId,
          type: 'group.deleted',
          organisationId: orgId,
          occurredAt: new Date().toISOString(),
          data: { organisation_id: orgId, chat_id: 'cht_01M80K1R10W8DAZKGWSRRYPVK7' },
        },
      ]);
    try {
      const first = await startLocalStack({ env: env(before) });
      const { orgId, credentials } = first.demo!;
      const caller = (apiUrl: string) => ({
        call: (path: string, init: { token?: string } = {}) =>
          fetch(`${apiUrl}${path}`, { headers: init.token ? { authorization: `Bearer ${init.token}` } : {} }),
      });
      const tokenOf = async (apiUrl: string) => {
        const response = await fetch(`${apiUrl}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(credentials.CRM_BOT),
        });
        return ((await response.json()) as { accessToken: string }).accessToken;
      };
      let saved: { iterator: string; cursor: string };
      try {
        const token = await tokenOf(first.apiUrl);
        await publish(orgId, 'evt_rotation_before');
        const caughtUp = await eventually(async () => {
          const read = await page(caller(first.apiUrl), token, orgId, {});
          expect(read.events.map((event) => event.eventId)).toContain('evt_rotation_before');
          return read;
        });
        const channels = await caller(first.apiUrl).call(`/channels/${orgId}?limit=1`, { token });
        saved = { iterator: caughtUp.iterator, cursor: ((await channels.json()) as { nextCursor: string }).nextCursor };
      } finally {
        await first.close();
      }

      const second = await startLocalStack({ env: env(after) });
      try {
        const token = await tokenOf(second.apiUrl);
        await publish(orgId, 'evt_rotation_after');
        const resumed = await eventually(async () => {
          const read = await page(caller(second.apiUrl), token, orgId, { iterator: saved.iterator });
          expect(read.events.map((event) => event.eventId)).toEqual(['evt_rotation_after']);
          return read;
        });
        const next = await page(caller(second.apiUrl), token, orgId, { iterator: resumed.iterator });
        const listed = await caller(second.apiUrl).call(
          `/channels/${orgId}?${new URLSearchParams({ limit: '1', cursor: saved.cursor })}`,
          { token },
        );

        expect(next).toMatchObject({ events: [], done: true });
        expect(listed.status).toBe(400);
        expect(await listed.json()).toMatchObject({ errors: [{ pointer: '#/query/cursor' }] });
      } finally {
        await second.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
