import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LEASE_UNITS, leaseChunk, RateAllowance } from '#shared/adapters/dynamodb/rate-allowance';

/** The shared counter of one table, as DynamoLimits.leaseUnits keeps it: never past the limit, a write per lease. */
function sharedCounter() {
  const hits = new Map<string, number>();
  const counter = {
    writes: 0,
    hits,
    lease: async (scope: string, orgId: string, limit: number, _window: number, windowStart: number, want: number) => {
      await Promise.resolve();
      counter.writes += 1;
      const key = `${scope}|${orgId}|${windowStart}`;
      const granted = Math.max(0, Math.min(want, limit - (hits.get(key) ?? 0)));
      hits.set(key, (hits.get(key) ?? 0) + granted);
      return granted;
    },
  };
  return counter;
}

const AT = new Date('2026-11-28T12:00:10Z');

describe('leaseChunk', () => {
  it('leases a tenth of the limit, at least 1 and at most LEASE_UNITS', () => {
    expect([2, 30, 120, 1200, 100_000].map(leaseChunk)).toEqual([1, 3, 12, 25, 25]);
    expect(LEASE_UNITS).toBe(25);
  });
});

describe('RateAllowance', () => {
  it('allows exactly the limit in one container, writing once per chunk, and refuses the rest without a write', async () => {
    const counter = sharedCounter();
    const allowance = new RateAllowance(counter.lease);

    const answers = [];
    for (let index = 0; index < 1300; index++) answers.push(await allowance.take('org-requests', 'a', 1200, 60, AT));

    expect(answers.filter((answer) => answer.allowed)).toHaveLength(1200);
    expect(counter.writes).toBe(1200 / 25 + 1);
    expect(answers.at(-1)).toEqual({ allowed: false, retryAfterSeconds: 50 });
  });

  it('takes a refunded unit back into the lease without a write, and only in its own window', async () => {
    const counter = sharedCounter();
    const allowance = new RateAllowance(counter.lease);
    for (let index = 0; index < 3; index++) await allowance.take('group-create', 'a', 3, 60, AT);
    expect((await allowance.take('group-create', 'a', 3, 60, AT)).allowed).toBe(false);

    allowance.refund('group-create', 'a', 60, AT);
    allowance.refund('group-create', 'a', 60, new Date(AT.getTime() - 60_000));
    const writes = counter.writes;

    expect((await allowance.take('group-create', 'a', 3, 60, AT)).allowed).toBe(true);
    expect((await allowance.take('group-create', 'a', 3, 60, AT)).allowed).toBe(false);
    expect(counter.writes).toBe(writes);
    expect((await allowance.take('group-create', 'a', 3, 60, new Date(AT.getTime() + 60_000))).allowed).toBe(true);
  });

  it('counts a cost of several units whole or not at all', async () => {
    const counter = sharedCounter();
    const allowance = new RateAllowance(counter.lease);

    expect((await allowance.take('message-send', 'a', 10, 60, AT, 7)).allowed).toBe(true);
    expect((await allowance.take('message-send', 'a', 10, 60, AT, 4)).allowed).toBe(false);
    expect((await allowance.take('message-send', 'a', 10, 60, AT, 3)).allowed).toBe(true);
    expect((await allowance.take('message-send', 'a', 10, 60, AT, 11)).allowed).toBe(false);
    expect(counter.hits.get(`message-send|a|${Math.floor(AT.getTime() / 60_000) * 60}`)).toBe(10);
  });

  it('writes once for concurrent requests of one container that need a lease', async () => {
    const counter = sharedCounter();
    const allowance = new RateAllowance(counter.lease);

    const answers = await Promise.all(
      Array.from({ length: 20 }, () => allowance.take('org-requests', 'a', 1200, 60, AT)),
    );

    expect(answers.every((answer) => answer.allowed)).toBe(true);
    expect(counter.writes).toBe(1);
  });

  it('with K containers, never allows more than the limit and refuses only once limit − K × (chunk − 1) were allowed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 400 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 600 }),
        async (containers, limit, picks) => {
          const counter = sharedCounter();
          const allowances = Array.from({ length: containers }, () => new RateAllowance(counter.lease));
          const answers = await Promise.all(
            picks.map((pick) => allowances[pick % containers]!.take('org-requests', 'a', limit, 60, AT)),
          );
          const allowed = answers.filter((answer) => answer.allowed).length;
          expect(allowed).toBeLessThanOrEqual(limit);
          // A refusal means the window was full: every unit was leased, and at most chunk − 1 per container unspent.
          if (answers.some((answer) => !answer.allowed)) {
            expect(allowed).toBeGreaterThanOrEqual(limit - containers * (leaseChunk(limit) - 1));
          } else {
            expect(allowed).toBe(picks.length);
          }
          // Another organisation's window is untouched.
          expect((await allowances[0]!.take('org-requests', 'b', limit, 60, AT)).allowed).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});
