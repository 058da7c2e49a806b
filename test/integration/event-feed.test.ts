import { setTimeout as delay } from 'node:timers/promises';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { main } from '#bin/cli/main';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { feedKeys } from '#shared/adapters/dynamodb/keys';
import { deps } from '#shared/config/deps';
import { eventPublisher } from '#shared/config/eventbridge';
import { createCredential } from '#shared/domain/orgs/administer';
import type { DomainEvent } from '#shared/ports/event-publisher';
import { eventually, type TestStack, useLocalStack } from '#test/support/local-stack';
import { useReceiver } from '#test/support/receiver';

interface FeedEvent {
  eventId: string;
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}
interface FeedPage {
  events: FeedEvent[];
  iterator: string;
  done: boolean;
}

let serial = 0;

/** A report event of `orgId`, as the report worker publishes it. */
function reportEvent(orgId: string, type: 'report.completed' | 'report.failed' = 'report.completed'): DomainEvent {
  serial += 1;
  const reportId = `rpt_feed${String(serial).padStart(6, '0')}`;
  return {
    eventId: `evt_feed_${orgId.slice(0, 8)}_${serial}`,
    type,
    organisationId: orgId,
    occurredAt: new Date().toISOString(),
    data:
      type === 'report.completed'
        ? {
            organisation_id: orgId,
            report_id: reportId,
            report_type: 'CHAT',
            schedule_id: null,
            row_count: serial,
            truncatedCells: 0,
          }
        : {
            organisation_id: orgId,
            report_id: reportId,
            report_type: 'CHAT',
            schedule_id: null,
            error: { code: 'REPORT_TIMEOUT', message: 'x' },
          },
  };
}

async function page(api: TestStack, token: string, orgId: string, query: Record<string, string>) {
  const response = await api.call(`/events/${orgId}?${new URLSearchParams(query)}`, { token });
  if (response.status !== 200) throw new Error(`feed: ${response.status} ${await response.text()}`);
  return (await response.json()) as FeedPage;
}

/** Every event of the feed from its start, paging with `limit`. */
async function readAll(api: TestStack, token: string, orgId: string, query: Record<string, string> = {}) {
  const events: FeedEvent[] = [];
  let iterator: string | undefined;
  for (;;) {
    const next = await page(api, token, orgId, { ...query, ...(iterator ? { iterator } : {}) });
    events.push(...next.events);
    iterator = next.iterator;
    if (next.done) return { events, iterator };
  }
}

describe('the events feed (CONTRACT §20)', () => {
  const api = useLocalStack({ ACCESS_STATUS_CACHE_SECONDS: '0' });
  const receiver = useReceiver();

  const otherOrg = (name: string) => api.newOrg(name, ['CRM_BOT']);

  it("gives a reader following the iterator every event of its organisation exactly once, in the feed's one order, while many writers publish at once", async () => {
    const token = await api.token('CRM_BOT');
    const other = await otherOrg('Feed neighbour');
    const publisher = eventPublisher();
    const ours: string[] = [];
    const theirs: string[] = [];
    const writer = async (orgId: string, count: number, ledger: string[]) => {
      for (let sent = 0; sent < count; ) {
        const batch = Array.from({ length: Math.min(count - sent, 1 + (sent % 4)) }, () => reportEvent(orgId));
        await publisher.publish(batch);
        // The bus delivers at least once: every third batch arrives twice.
        if (sent % 3 === 0) await publisher.publish(batch);
        ledger.push(...batch.map((event) => event.eventId));
        sent += batch.length;
      }
    };
    const seen: FeedEvent[] = [];
    let writing = true;
    const reader = (async () => {
      let iterator: string | undefined;
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        const next = await page(api, token, api.orgId, { limit: '7', ...(iterator ? { iterator } : {}) });
        seen.push(...next.events);
        iterator = next.iterator;
        if (next.done && !writing && seen.length >= ours.length) return;
        if (next.done) await delay(20);
      }
    })();

    await Promise.all([
      ...Array.from({ length: 6 }, () => writer(api.orgId, 15, ours)),
      ...Array.from({ length: 2 }, () => writer(other.orgId, 10, theirs)),
    ]);
    writing = false;
    await reader;

    const ids = seen.map((event) => event.eventId);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...ours].sort());
    expect(ids.filter((id) => theirs.includes(id))).toEqual([]);
    expect((await readAll(api, token, api.orgId, { limit: '100' })).events.map((event) => event.eventId)).toEqual(ids);
    const neighbour = await readAll(api, other.token, other.orgId, { limit: '100' });
    expect(neighbour.events.map((event) => event.eventId).sort()).toEqual([...theirs].sort());
  }, 120_000);

  it('filters by types, pages by limit, says done when caught up and always hands out an iterator', async () => {
    const tenant = await otherOrg('Feed filters');
    const events = [
      reportEvent(tenant.orgId, 'report.completed'),
      reportEvent(tenant.orgId, 'report.failed'),
      reportEvent(tenant.orgId, 'report.completed'),
      reportEvent(tenant.orgId, 'report.failed'),
      reportEvent(tenant.orgId, 'report.completed'),
    ];
    for (const event of events) await eventPublisher().publish([event]);
    await eventually(async () => {
      expect((await readAll(api, tenant.token, tenant.orgId)).events).toHaveLength(5);
    });

    const first = await page(api, tenant.token, tenant.orgId, { limit: '2' });
    const second = await page(api, tenant.token, tenant.orgId, { limit: '2', iterator: first.iterator });
    const third = await page(api, tenant.token, tenant.orgId, { limit: '2', iterator: second.iterator });
    const after = await page(api, tenant.token, tenant.orgId, { iterator: third.iterator });
    const failed = await readAll(api, tenant.token, tenant.orgId, { types: 'report.failed', limit: '1' });
    const both = await page(api, tenant.token, tenant.orgId, { types: 'report.failed,report.completed' });

    expect([first, second, third].map((each) => [each.events.length, each.done])).toEqual([
      [2, false],
      [2, false],
      [1, true],
    ]);
    const all = (await readAll(api, tenant.token, tenant.orgId)).events;
    expect([...first.events, ...second.events, ...third.events]).toEqual(all);
    expect(all.map((event) => event.eventId).sort()).toEqual(events.map((event) => event.eventId).sort());
    expect(after).toEqual({ events: [], iterator: expect.any(String), done: true });
    expect(failed.events).toEqual(all.filter((event) => event.type === 'report.failed'));
    expect(failed.events).toHaveLength(2);
    expect(both.events).toHaveLength(5);
    const published = events.find((event) => event.eventId === all[0]!.eventId)!;
    expect(all[0]).toEqual({
      eventId: published.eventId,
      type: published.type,
      timestamp: published.occurredAt,
      data: {
        type: published.type,
        timestamp: published.occurredAt,
        organisation_id: tenant.orgId,
        report_id: expect.any(String),
        report_type: 'CHAT',
        ...published.data,
      },
    });
  });

  it('answers 400 for an unknown type, a limit out of range or an iterator it did not issue for this organisation', async () => {
    const token = await api.token('CRM_ADMIN');
    const other = await otherOrg('Feed iterators');
    const foreign = await page(api, other.token, other.orgId, {});

    const queries: Record<string, string>[] = [
      { types: 'report.completed,report.nope' },
      { limit: '0' },
      { limit: '101' },
      { iterator: 'not-an-iterator' },
      { iterator: foreign.iterator },
    ];
    const answers = await Promise.all(
      queries.map(async (query) => {
        const response = await api.call(`/events/${api.orgId}?${new URLSearchParams(query)}`, { token });
        const body = (await response.json()) as { code: string; errors?: { pointer: string }[] };
        return [response.status, response.headers.get('content-type'), body.code, body.errors?.[0]?.pointer];
      }),
    );

    expect(answers).toEqual([
      [400, 'application/problem+json', 'VALIDATION_FAILED', '#/query/types'],
      [400, 'application/problem+json', 'VALIDATION_FAILED', '#/query/limit'],
      [400, 'application/problem+json', 'VALIDATION_FAILED', '#/query/limit'],
      [400, 'application/problem+json', 'VALIDATION_FAILED', '#/query/iterator'],
      [400, 'application/problem+json', 'VALIDATION_FAILED', '#/query/iterator'],
    ]);
  });

  it('refuses another organisation (401) and the agent role (403)', async () => {
    const other = await otherOrg('Feed refusals');

    const mismatch = await api.call(`/events/${api.orgId}`, { token: other.token });
    const agent = await api.call(`/events/${api.orgId}`, { token: await api.token('CRM_AGENT') });
    const owner = await api.call(`/events/${api.orgId}`, { token: await api.token('ACCOUNT_OWNER') });

    expect([mismatch.status, agent.status, owner.status]).toEqual([401, 403, 200]);
  });

  it("serves each event's webhook body byte for byte, with its webhook-id as eventId; test deliveries never appear", async () => {
    const tenant = await otherOrg('Feed bytes');
    const admin = await createCredential(deps(), { orgId: tenant.orgId, roles: ['CRM_ADMIN'] });
    const adminToken = (
      (await (
        await api.call('/token', {
          method: 'POST',
          json: { clientId: admin.clientId, clientSecret: admin.clientSecret },
        })
      ).json()) as { accessToken: string }
    ).accessToken;
    const created = await api.call(`/webhooks/${tenant.orgId}`, {
      method: 'POST',
      token: adminToken,
      json: { url: `${receiver.url}/${tenant.orgId}` },
    });
    const { webhookId } = (await created.json()) as { webhookId: string };
    const event = reportEvent(tenant.orgId, 'report.failed');
    const test = await api.call(`/webhooks/${tenant.orgId}/${webhookId}/test`, {
      method: 'POST',
      token: adminToken,
      json: { type: 'report.completed' },
    });
    const { eventId: testEventId } = (await test.json()) as { eventId: string };

    await eventPublisher().publish([event]);
    const delivered = await eventually(() => {
      const requests = receiver.received.filter((request) => request.path === `/${tenant.orgId}`);
      expect(requests).toHaveLength(2);
      return requests.find((request) => request.headers['webhook-id'] === event.eventId)!;
    });
    const feed = await eventually(async () => {
      const { events } = await readAll(api, tenant.token, tenant.orgId);
      expect(events).toHaveLength(1);
      return events;
    });

    expect(test.status).toBe(202);
    expect(feed[0]!.eventId).toBe(delivered.headers['webhook-id']);
    expect(JSON.stringify(feed[0]!.data)).toBe(delivered.body);
    expect(feed.map((entry) => entry.eventId)).not.toContain(testEventId);
  });

  it('is erased with its organisation', async () => {
    const doomed = await otherOrg('Feed erased');
    await eventPublisher().publish([reportEvent(doomed.orgId), reportEvent(doomed.orgId)]);
    await eventually(async () => {
      expect((await readAll(api, doomed.token, doomed.orgId)).events).toHaveLength(2);
    });
    const { endpoints, tableName, credentials } = api.stack.info;
    const db = createDocumentClient({ region: 'eu-west-1', endpoint: endpoints.dynamodb, credentials });
    const partition = async () =>
      (
        await db.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'PK = :pk',
            ExpressionAttributeValues: { ':pk': feedKeys.partition(doomed.orgId) },
          }),
        )
      ).Items ?? [];
    const before = await partition();

    let stdout = '';
    const status = await main(
      ['org', 'delete', '--org', doomed.orgId, '--confirm', doomed.orgId, '--drain-seconds', '0'],
      { out: (line) => (stdout += line), err: () => undefined },
      { WPCRM_DATA_DIR: api.stack.dataDir },
    );
    const after = await partition();
    db.destroy();

    expect(before.length).toBeGreaterThanOrEqual(5);
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ erased: expect.objectContaining({ feedEvents: 2, feedIndex: 3 }) });
    expect(after).toEqual([]);
  });
});
