import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { limitKeys, type RateScope } from '#shared/adapters/dynamodb/keys';
import { DynamoLimits } from '#shared/adapters/dynamodb/limits';
import { LEASE_UNITS, refusalDistance } from '#shared/adapters/dynamodb/rate-allowance';
import { useDynamo } from '#test/support/dynamo';

const ORG_A = '0b6e8f7a-1c2d-4e3f-8a9b-0c1d2e3f4a5b';
const ORG_B = '9f8e7d6c-5b4a-4c3d-9e2f-1a0b9c8d7e6f';

/** A container: its own DynamoLimits over the shared table, with its writes counted. */
function container(db: DynamoDBDocumentClient, tableName: string) {
  const counted = { writes: 0 };
  const client = {
    send: (command: { constructor: { name: string } }) => {
      if (command.constructor.name === 'UpdateCommand') counted.writes += 1;
      return db.send(command as never);
    },
  } as unknown as DynamoDBDocumentClient;
  return Object.assign(counted, { limits: new DynamoLimits(client, tableName) });
}

describe('the request quota leased in growing chunks (CONTRACT §18, issues 29 and 34)', () => {
  const table = useDynamo();
  const containers = (count: number) => Array.from({ length: count }, () => container(table.db, table.tableName));
  const hits = async (scope: RateScope, orgId: string, windowStart: string) => {
    const counter = await table.db.send(
      new GetCommand({
        TableName: table.tableName,
        Key: limitKeys.rateWindow(scope, orgId, Date.parse(windowStart) / 1000),
        ConsistentRead: true,
      }),
    );
    return Number(counter.Item?.hits ?? 0);
  };

  it('lets K containers hammering one organisation allow at most the limit, at about one write per 25 requests, and leaves another organisation alone', async () => {
    const limit = 1000;
    const windowSeconds = 60;
    const at = new Date('2026-11-28T12:00:15Z');
    const pool = containers(4);
    const attempts = 1600;

    const answers = await Promise.all(
      Array.from({ length: attempts }, (_, index) =>
        pool[(index * 7) % pool.length]!.limits.take('org-requests', ORG_A, limit, windowSeconds, at),
      ),
    );

    const allowed = answers.filter((answer) => answer.allowed).length;
    expect(allowed).toBeLessThanOrEqual(limit);
    expect(allowed).toBeGreaterThanOrEqual(limit - refusalDistance(limit, pool.length));
    for (const refusal of answers.filter((answer) => !answer.allowed)) expect(refusal.retryAfterSeconds).toBe(45);
    expect(await hits('org-requests', ORG_A, '2026-11-28T12:00:00Z')).toBeLessThanOrEqual(limit);
    // Five growing leases per container (1 … 16), then one per LEASE_UNITS, plus a few when the window fills.
    const writes = pool.reduce((sum, { writes }) => sum + writes, 0);
    expect(writes).toBeLessThanOrEqual(Math.ceil(limit / LEASE_UNITS) + pool.length * 10);
    expect(writes / attempts).toBeLessThan(0.06);

    // Refusals once the window is full cost nothing.
    const before = pool.map(({ writes }) => writes);
    for (const { limits } of pool) {
      expect((await limits.take('org-requests', ORG_A, limit, windowSeconds, at)).allowed).toBe(false);
    }
    expect(pool.map(({ writes }) => writes)).toEqual(before);

    // Another organisation, and the next window, are untouched.
    for (const { limits } of pool) {
      expect((await limits.take('org-requests', ORG_B, limit, windowSeconds, at)).allowed).toBe(true);
      expect(
        (await limits.take('org-requests', ORG_A, limit, windowSeconds, new Date(at.getTime() + 60_000))).allowed,
      ).toBe(true);
    }
  });

  it('refuses an organisation whose requests 50 containers take in turns only within 2.5 % of its limit', async () => {
    const limit = 1200;
    const at = new Date('2026-11-28T14:10:05Z');
    const pool = containers(50);
    let allowed = 0;
    for (let request = 0; ; request++) {
      if (!(await pool[(request * 7) % pool.length]!.limits.take('org-requests', ORG_B, limit, 60, at)).allowed) break;
      allowed += 1;
    }
    expect(allowed).toBeGreaterThanOrEqual(limit * 0.975);
    expect(allowed).toBeLessThanOrEqual(limit);
    // With leases of 25 from each container's first request, the 49th request would have been refused.
    const writes = pool.reduce((sum, { writes }) => sum + writes, 0);
    expect(writes / allowed).toBeLessThan(0.35);
  });

  it('refuses an organisation spread unevenly over 50 containers only within refusalDistance of its limit', async () => {
    const limit = 1200;
    const at = new Date('2026-11-28T14:00:05Z');
    const pool = containers(50);
    const served = pool.map(() => 0);
    const take = async (index: number) => {
      served[index]! += 1;
      return (await pool[index]!.limits.take('org-requests', ORG_A, limit, 60, at)).allowed;
    };
    // A burst spread unevenly over the 50 (each serving alone, all at once): 1 to 40 requests each, many of them stop
    // just past a lease (16 or 17: the worst case of growing leases, 15 units left unspent).
    const burst = [1, 2, 3, 5, 8, 16, 17, 31, 40, 16];
    const first = await Promise.all(
      pool.map(async (_, index) => {
        let allowed = 0;
        for (let request = 0; request < burst[index % burst.length]!; request++) if (await take(index)) allowed += 1;
        return allowed;
      }),
    );
    let allowed = first.reduce((sum, count) => sum + count, 0);
    expect(allowed).toBe(served.reduce((sum, count) => sum + count, 0));

    // Then the traffic goes on over every container until the first refusal.
    let refusedAt: { allowed: number; container: number } | undefined;
    for (let request = 0; !refusedAt; request++) {
      const index = (request * 7) % pool.length;
      if (await take(index)) allowed += 1;
      else refusedAt = { allowed, container: index };
    }

    // The units not yet spent are the other containers': at most min(24, n − 1) each, and at most refusalDistance.
    const held = served.reduce(
      (sum, count, index) => (index === refusedAt!.container ? sum : sum + Math.min(LEASE_UNITS - 1, count - 1)),
      0,
    );
    expect(refusedAt.allowed).toBeGreaterThanOrEqual(limit - held);
    expect(refusedAt.allowed).toBeGreaterThanOrEqual(limit - refusalDistance(limit, pool.length));
    expect(refusalDistance(limit, pool.length)).toBe(575);
    expect(refusedAt.allowed).toBeLessThanOrEqual(limit);
    expect(await hits('org-requests', ORG_A, '2026-11-28T14:00:00Z')).toBe(limit);
  });
});

describe('limits counted exactly, whatever the containers (CONTRACT §4, §13, §18; issue 34)', () => {
  const table = useDynamo();
  const containers = (count: number) => Array.from({ length: count }, () => container(table.db, table.tableName));

  it('allows exactly 30 group creations a minute to 10 containers at once, and 30 one after another', async () => {
    const at = new Date('2026-11-28T13:00:05Z');
    const pool = containers(10);

    const answers = await Promise.all(
      Array.from({ length: 45 }, (_, index) => pool[index % 10]!.limits.take('group-create', ORG_A, 30, 60, at)),
    );
    expect(answers.filter((answer) => answer.allowed)).toHaveLength(30);
    // One conditional write per request: the counter is the truth.
    expect(pool.reduce((sum, { writes }) => sum + writes, 0)).toBe(45);

    // One after another, spread over the containers: none of the 30 refused, the 31st is.
    const next = new Date('2026-11-28T13:01:05Z');
    for (let request = 0; request < 30; request++) {
      expect((await pool[(request * 3) % 10]!.limits.take('group-create', ORG_B, 30, 60, next)).allowed).toBe(true);
    }
    expect(await pool[9]!.limits.take('group-create', ORG_B, 30, 60, next)).toEqual({
      allowed: false,
      retryAfterSeconds: 55,
    });
  });

  it('counts messages by their cost under 600/60: what is refused would not have fitted', async () => {
    const at = new Date('2026-11-28T13:10:00Z');
    const pool = containers(8);
    const costs = Array.from({ length: 160 }, (_, index) => 1 + ((index * 5) % 8));

    const answers = await Promise.all(
      costs.map((cost, index) => pool[index % 8]!.limits.take('message-send', ORG_A, 600, 60, at, cost)),
    );

    const counted = costs.reduce((sum, cost, index) => (answers[index]!.allowed ? sum + cost : sum), 0);
    expect(counted).toBeLessThanOrEqual(600);
    for (const [index, answer] of answers.entries()) {
      if (!answer.allowed) expect(costs[index]).toBeGreaterThan(600 - counted);
    }
  });

  it('takes a refund back from the shared counter: 60 redeliveries an hour over 6 containers, one given back', async () => {
    const at = new Date('2026-11-28T15:20:00Z');
    const pool = containers(6);
    for (let request = 0; request < 60; request++) {
      expect((await pool[request % 6]!.limits.take('webhook-redeliver', ORG_A, 60, 3600, at)).allowed).toBe(true);
    }
    expect((await pool[0]!.limits.take('webhook-redeliver', ORG_A, 60, 3600, at)).allowed).toBe(false);

    await pool[1]!.limits.refund('webhook-redeliver', ORG_A, 60, 3600, at);

    expect((await pool[5]!.limits.take('webhook-redeliver', ORG_A, 60, 3600, at)).allowed).toBe(true);
    expect((await pool[2]!.limits.take('webhook-redeliver', ORG_A, 60, 3600, at)).allowed).toBe(false);
  });
});
