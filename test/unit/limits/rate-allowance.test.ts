import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  countsExactly,
  EXACT_LIMIT_MAX,
  LEASE_UNITS,
  nextLeaseUnits,
  RateAllowance,
  type RateCounter,
  refusalDistance,
} from '#shared/adapters/dynamodb/rate-allowance';

/** The shared counter of one table, as DynamoLimits keeps it: never past the limit, a write per lease or count. */
function sharedCounter() {
  const hits = new Map<string, number>();
  const holders = new Map<string, number>();
  const key = (scope: string, orgId: string, windowStart: number) => `${scope}|${orgId}|${windowStart}`;
  const counter: RateCounter & { leases: number; counts: number; uncounts: number; hits: Map<string, number> } = {
    leases: 0,
    counts: 0,
    uncounts: 0,
    hits,
    async lease(scope, orgId, limit, _window, windowStart, want, newHolder) {
      await Promise.resolve();
      counter.leases += 1;
      const at = key(scope, orgId, windowStart);
      const granted = Math.max(0, Math.min(want, limit - (hits.get(at) ?? 0)));
      hits.set(at, (hits.get(at) ?? 0) + granted);
      if (newHolder) holders.set(at, (holders.get(at) ?? 0) + 1);
      return { granted, room: limit - hits.get(at)!, holders: holders.get(at) ?? 1 };
    },
    async count(scope, orgId, limit, _window, windowStart, units) {
      await Promise.resolve();
      counter.counts += 1;
      const at = key(scope, orgId, windowStart);
      if ((hits.get(at) ?? 0) + units > limit) return false;
      hits.set(at, (hits.get(at) ?? 0) + units);
      return true;
    },
    async uncount(scope, orgId, windowStart, units) {
      await Promise.resolve();
      counter.uncounts += 1;
      const at = key(scope, orgId, windowStart);
      if ((hits.get(at) ?? 0) >= units) hits.set(at, (hits.get(at) ?? 0) - units);
    },
  };
  return counter;
}

const AT = new Date('2026-11-28T12:00:10Z');
const WINDOW = Math.floor(AT.getTime() / 60_000) * 60;

describe('lease sizes and the leased/exact threshold', () => {
  it('grows a container’s leases 1, 2, 4, 8, 16, then LEASE_UNITS', () => {
    const sizes = [];
    let leased = 0;
    for (let lease = 0; lease < 8; lease++) {
      sizes.push(nextLeaseUnits(leased));
      leased += sizes.at(-1)!;
    }
    expect(sizes).toEqual([1, 2, 4, 8, 16, 25, 25, 25]);
    expect(LEASE_UNITS).toBe(25);
  });

  it('counts the contract’s reachable limits exactly and leases the request quota', () => {
    expect(EXACT_LIMIT_MAX).toBe(600);
    // GROUP_CREATE 30/60, WEBHOOK_REDELIVER 60/3600, NETWORK_CALL 120/60, MESSAGE_SEND 600/60; ORG_REQUEST 1200/60.
    expect([30, 60, 120, 600, 601, 1200].map(countsExactly)).toEqual([true, true, true, true, false, false]);
  });

  it('documents how far below the limit a first refusal can come', () => {
    expect([1, 2, 10, 50, 1000].map((containers) => refusalDistance(1200, containers))).toEqual([0, 24, 216, 575, 100]);
    expect(refusalDistance(30, 50)).toBe(0);
    expect(refusalDistance(600, 50)).toBe(0);
  });
});

describe('RateAllowance, leased (limit above EXACT_LIMIT_MAX)', () => {
  it('allows exactly the limit in one container, one write per lease, and refuses the rest without a write', async () => {
    const counter = sharedCounter();
    const allowance = new RateAllowance(counter);

    const answers = [];
    for (let index = 0; index < 1300; index++) answers.push(await allowance.take('org-requests', 'a', 1200, 60, AT));

    expect(answers.filter((answer) => answer.allowed)).toHaveLength(1200);
    // 1 + 2 + 4 + 8 + 16 = 31, then leases of 25, and halves of the room left once it is under 50: about one write
    // per 25 requests.
    expect(counter.leases).toBeLessThanOrEqual(5 + 1200 / 25 + 8);
    expect(counter.counts).toBe(0);
    expect(answers.at(-1)).toEqual({ allowed: false, retryAfterSeconds: 50 });
  });

  it('leases one unit for a container’s first request: a container that serves once holds nothing unspent', async () => {
    const counter = sharedCounter();
    const containers = Array.from({ length: 50 }, () => new RateAllowance(counter));
    for (const container of containers) {
      expect((await container.take('org-requests', 'a', 1200, 60, AT)).allowed).toBe(true);
    }
    expect(counter.hits.get(`org-requests|a|${WINDOW}`)).toBe(50);
  });

  it('takes a refunded unit back into the lease without a write, and only in its own window', async () => {
    const counter = sharedCounter();
    const allowance = new RateAllowance(counter);
    for (let index = 0; index < 700; index++) await allowance.take('org-requests', 'a', 700, 60, AT);
    expect((await allowance.take('org-requests', 'a', 700, 60, AT)).allowed).toBe(false);

    await allowance.refund('org-requests', 'a', 700, 60, AT);
    await allowance.refund('org-requests', 'a', 700, 60, new Date(AT.getTime() - 60_000));
    const writes = counter.leases;

    expect((await allowance.take('org-requests', 'a', 700, 60, AT)).allowed).toBe(true);
    expect((await allowance.take('org-requests', 'a', 700, 60, AT)).allowed).toBe(false);
    expect(counter.leases).toBe(writes);
    expect(counter.uncounts).toBe(0);
    expect((await allowance.take('org-requests', 'a', 700, 60, new Date(AT.getTime() + 60_000))).allowed).toBe(true);
  });

  it('lets concurrent requests of one container share its leases', async () => {
    const counter = sharedCounter();
    const allowance = new RateAllowance(counter);

    const answers = await Promise.all(
      Array.from({ length: 20 }, () => allowance.take('org-requests', 'a', 1200, 60, AT)),
    );

    expect(answers.every((answer) => answer.allowed)).toBe(true);
    // 1 + 2 + 4 + 8 + 16 ≥ 20: one write per lease, not per request.
    expect(counter.leases).toBe(5);
  });

  it('with K containers taking turns, refuses none until within 4 % of the limit', async () => {
    for (const containers of [2, 5, 10, 20, 50, 100]) {
      const counter = sharedCounter();
      const allowances = Array.from({ length: containers }, () => new RateAllowance(counter));
      let allowed = 0;
      for (let request = 0; ; request++) {
        if (!(await allowances[(request * 7) % containers]!.take('org-requests', 'a', 1200, 60, AT)).allowed) break;
        allowed += 1;
      }
      expect(allowed, `${containers} containers`).toBeGreaterThanOrEqual(1152);
    }
  });

  it('with K containers, never allows more than the limit and refuses none before limit − refusalDistance', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: EXACT_LIMIT_MAX + 1, max: 2000 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 2500, size: 'max' }),
        async (containers, limit, picks) => {
          const counter = sharedCounter();
          const allowances = Array.from({ length: containers }, () => new RateAllowance(counter));
          let allowed = 0;
          let firstRefusalAfter: number | undefined;
          const used = new Set<number>();
          for (const pick of picks) {
            used.add(pick % containers);
            const answer = await allowances[pick % containers]!.take('org-requests', 'a', limit, 60, AT);
            if (answer.allowed) allowed += 1;
            else firstRefusalAfter ??= allowed;
          }
          expect(allowed).toBeLessThanOrEqual(limit);
          if (firstRefusalAfter !== undefined) {
            expect(firstRefusalAfter).toBeGreaterThanOrEqual(limit - refusalDistance(limit, used.size));
          } else {
            expect(allowed).toBe(picks.length);
          }
          // Another organisation's window is untouched.
          expect((await allowances[0]!.take('org-requests', 'b', limit, 60, AT)).allowed).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('never allows more than the limit to concurrent requests of K containers', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: EXACT_LIMIT_MAX + 1, max: 1000 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 1500, size: 'max' }),
        async (containers, limit, picks) => {
          const counter = sharedCounter();
          const allowances = Array.from({ length: containers }, () => new RateAllowance(counter));
          const answers = await Promise.all(
            picks.map((pick) => allowances[pick % containers]!.take('org-requests', 'a', limit, 60, AT)),
          );
          expect(answers.filter((answer) => answer.allowed).length).toBeLessThanOrEqual(limit);
          expect(counter.hits.get(`org-requests|a|${WINDOW}`)).toBeLessThanOrEqual(limit);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('RateAllowance, exact (limit up to EXACT_LIMIT_MAX)', () => {
  it('counts every request on the shared counter: K containers allow exactly the limit, none under it refused', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: EXACT_LIMIT_MAX }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 800, size: 'max' }),
        async (containers, limit, picks) => {
          const counter = sharedCounter();
          const allowances = Array.from({ length: containers }, () => new RateAllowance(counter));
          const answers = await Promise.all(
            picks.map((pick) => allowances[pick % containers]!.take('group-create', 'a', limit, 60, AT)),
          );
          expect(answers.filter((answer) => answer.allowed)).toHaveLength(Math.min(limit, picks.length));
          expect(counter.leases).toBe(0);
          expect(counter.counts).toBe(picks.length);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('gives a refund back to the shared counter, so another container can use it', async () => {
    const counter = sharedCounter();
    const [one, two] = [new RateAllowance(counter), new RateAllowance(counter)];
    for (let index = 0; index < 30; index++) await one.take('network-calls', 'a', 30, 60, AT);
    expect((await two.take('network-calls', 'a', 30, 60, AT)).allowed).toBe(false);

    await one.refund('network-calls', 'a', 30, 60, AT);

    expect(counter.uncounts).toBe(1);
    expect((await two.take('network-calls', 'a', 30, 60, AT)).allowed).toBe(true);
    expect((await one.take('network-calls', 'a', 30, 60, AT)).allowed).toBe(false);
  });

  it('counts a cost of several units whole or not at all', async () => {
    const counter = sharedCounter();
    const allowance = new RateAllowance(counter);

    expect((await allowance.take('message-send', 'a', 10, 60, AT, 7)).allowed).toBe(true);
    expect((await allowance.take('message-send', 'a', 10, 60, AT, 4)).allowed).toBe(false);
    expect((await allowance.take('message-send', 'a', 10, 60, AT, 3)).allowed).toBe(true);
    expect((await allowance.take('message-send', 'a', 10, 60, AT, 11)).allowed).toBe(false);
    expect(counter.hits.get(`message-send|a|${WINDOW}`)).toBe(10);
  });
});
