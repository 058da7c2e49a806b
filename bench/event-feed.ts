import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { startLocalStack } from '#infra/local/stack';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { feedKeys, feedSortKey } from '#shared/adapters/dynamodb/keys';
import { deps } from '#shared/config/deps';
import { eventPublisher } from '#shared/config/eventbridge';
import { eventFeed } from '#shared/config/events';
import { createCredential, createOrg } from '#shared/domain/orgs/administer';
import type { FeedEntry } from '#shared/ports/event-feed';
import { stackEnv } from '#test/support/stack-harness';
import { percentile } from './stats.ts';

export interface FeedSizes {
  /** Events published one burst at a time, each timed from PutEvents to its visibility in the feed. */
  latencyEvents: number;
  /** Events published at once in each burst (concurrent writers). */
  burst: number;
  /** Milliseconds between bursts: the offered rate stays one the local stack sustains, so latency is not queueing. */
  pauseMs: number;
  /** Events read through the feed and, the baseline, by one DynamoDB Query loop over the same items. */
  readEvents: number;
}

export const FEED_FULL: FeedSizes = { latencyEvents: 200, burst: 10, pauseMs: 500, readEvents: 10_000 };
export const FEED_SMOKE: FeedSizes = { latencyEvents: 10, burst: 5, pauseMs: 100, readEvents: 200 };

/**
 * The events feed (CONTRACT §20) on the local stack: publication-to-visibility latency (PutEvents on the bus → the
 * event in a page of `GET /events/:orgId` of a reader following the iterator, polling every 20 ms), and reading
 * `readEvents` events through the route (100 a page) beside reading the same items with one DynamoDB Query loop.
 */
export async function eventFeedBenchmark(sizes: FeedSizes) {
  const stack = await startLocalStack({
    seed: false,
    env: stackEnv({ POWERTOOLS_LOG_LEVEL: 'SILENT', ORG_REQUEST_RATE_LIMIT: '100000000/60' }),
  });
  try {
    const { orgId } = await createOrg(deps(), { name: 'Feed bench' });
    const { clientId, clientSecret } = await createCredential(deps(), { orgId, roles: ['CRM_BOT'] });
    const { accessToken } = (await (
      await fetch(`${stack.apiUrl}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientId, clientSecret }),
      })
    ).json()) as { accessToken: string };
    const page = async (iterator: string | undefined, limit: number) => {
      const query = new URLSearchParams({ limit: String(limit), ...(iterator ? { iterator } : {}) });
      const response = await fetch(`${stack.apiUrl}/events/${orgId}?${query}`, {
        headers: { authorization: `Bearer ${accessToken}` },
      });
      if (response.status !== 200) throw new Error(`feed: ${response.status} ${await response.text()}`);
      return (await response.json()) as { events: { eventId: string }[]; iterator: string; done: boolean };
    };

    const published = new Map<string, number>();
    const latencies: number[] = [];
    let iterator: string | undefined;
    let writing = true;
    const reader = (async () => {
      while (writing || latencies.length < published.size) {
        const next = await page(iterator, 100);
        const now = performance.now();
        for (const event of next.events) latencies.push(now - published.get(event.eventId)!);
        iterator = next.iterator;
        if (next.done) await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    for (let sent = 0; sent < sizes.latencyEvents; sent += sizes.burst) {
      await Promise.all(
        Array.from({ length: Math.min(sizes.burst, sizes.latencyEvents - sent) }, async (_, index) => {
          const eventId = `evt_bench_feed_${sent + index}`;
          published.set(eventId, performance.now());
          await eventPublisher().publish([
            {
              eventId,
              type: 'group.deleted',
              organisationId: orgId,
              occurredAt: new Date().toISOString(),
              data: { organisation_id: orgId, chat_id: `cht_bench${sent + index}` },
            },
          ]);
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, sizes.pauseMs));
    }
    writing = false;
    await reader;

    // The read: a feed of its own, filled through the store (not timed), then read both ways.
    const reading = await createOrg(deps(), { name: 'Feed bench reads' });
    const body = JSON.stringify({ type: 'group.deleted', timestamp: new Date().toISOString(), chat_id: 'cht_x' });
    const expiresAt = Math.floor(Date.now() / 1000) + 86_400;
    for (let start = 0; start < sizes.readEvents; start += 100) {
      const entries: FeedEntry[] = Array.from({ length: Math.min(100, sizes.readEvents - start) }, (_, index) => ({
        eventId: `evt_bench_read_${start + index}`,
        type: 'group.deleted',
        timestamp: new Date().toISOString(),
        body,
        expiresAt,
      }));
      await eventFeed().append(reading.orgId, entries);
    }
    const readerCredential = await createCredential(deps(), { orgId: reading.orgId, roles: ['CRM_BOT'] });
    const readerToken = (
      (await (
        await fetch(`${stack.apiUrl}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ clientId: readerCredential.clientId, clientSecret: readerCredential.clientSecret }),
        })
      ).json()) as { accessToken: string }
    ).accessToken;
    const feedStarted = performance.now();
    let viaFeed = 0;
    let readIterator: string | undefined;
    for (;;) {
      const query = new URLSearchParams({ limit: '100', ...(readIterator ? { iterator: readIterator } : {}) });
      const response = await fetch(`${stack.apiUrl}/events/${reading.orgId}?${query}`, {
        headers: { authorization: `Bearer ${readerToken}` },
      });
      const next = (await response.json()) as { events: unknown[]; iterator: string; done: boolean };
      viaFeed += next.events.length;
      readIterator = next.iterator;
      if (next.done) break;
    }
    const feedMs = performance.now() - feedStarted;

    const db = createDocumentClient({
      region: stack.config.aws.region,
      endpoint: stack.info.endpoints.dynamodb,
      credentials: stack.info.credentials,
    });
    const queryStarted = performance.now();
    let viaQuery = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const result = await db.send(
        new QueryCommand({
          TableName: stack.config.aws.tableName,
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :ev)',
          ExpressionAttributeValues: { ':pk': feedKeys.partition(reading.orgId), ':ev': feedSortKey(0).slice(0, 3) },
          ConsistentRead: true,
          Limit: 100,
          ExclusiveStartKey: startKey,
        }),
      );
      viaQuery += result.Items?.length ?? 0;
      startKey = result.LastEvaluatedKey;
    } while (startKey);
    const queryMs = performance.now() - queryStarted;
    db.destroy();

    return {
      sizes,
      latency: {
        events: latencies.length,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        max: Math.max(...latencies),
      },
      read: { events: viaFeed, feedMs, queryEvents: viaQuery, queryMs, ratio: feedMs / queryMs },
    };
  } finally {
    await stack.close();
  }
}
