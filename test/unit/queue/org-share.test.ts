import { describe, expect, it } from 'vitest';
import type { PoolLease, PoolLeases } from '#shared/ports/pool-leases';
import { deferredJob, OrgShareExceeded, OrgShares } from '#shared/queue/org-share';

/** Leases in memory: the share is checked as the table's conditional write checks it. */
function memoryLeases() {
  const held = new Map<string, Set<string>>();
  const calls: string[] = [];
  const leases: PoolLeases = {
    acquire: async (lease: PoolLease, { share }) => {
      calls.push(`acquire ${lease.orgId} ${lease.leaseId}`);
      const set = held.get(lease.orgId) ?? new Set();
      held.set(lease.orgId, set);
      if (set.size >= share) return false;
      set.add(lease.leaseId);
      return true;
    },
    release: async (lease: PoolLease) => {
      calls.push(`release ${lease.orgId} ${lease.leaseId}`);
      held.get(lease.orgId)?.delete(lease.leaseId);
    },
    held: async (orgId: string) => held.get(orgId)?.size ?? 0,
  };
  return { leases, calls, held };
}

describe("an invocation's places in its pool (shared/queue/org-share.ts)", () => {
  it('takes one lease per organisation for all of its jobs in the invocation, and gives it back when the last of them ends, not when the invocation does', async () => {
    const { leases, calls } = memoryLeases();
    const invocation = new OrgShares('pool', 4, leases, () => 1_000).forInvocation('inv', 60_000);

    const [a1, a2, b1] = await Promise.all([invocation.admit('a'), invocation.admit('a'), invocation.admit('b')]);
    await b1();
    await a1();
    expect(calls).toEqual(['acquire a inv:0', 'acquire b inv:1', 'release b inv:1']);
    await a2();
    await a2();
    expect(calls.at(-1)).toBe('release a inv:0');
    // Another job of `a` later in the same invocation takes a new lease.
    await (await invocation.admit('a'))();
    expect(calls.slice(-2)).toEqual(['acquire a inv:2', 'release a inv:2']);
    await invocation.releaseAll();
    expect(calls).toHaveLength(6);
  });

  it('refuses an organisation at its share, and refuses it again for a moment without asking the table', async () => {
    const { leases, calls } = memoryLeases();
    let now = 1_000;
    const pauses: number[] = [];
    const shares = new OrgShares(
      'pool',
      4,
      leases,
      () => now,
      () => 0.5,
      async (ms) => void pauses.push(ms),
    );
    const holding = shares.forInvocation('first', 60_000);
    await holding.admit('a');

    const other = shares.forInvocation('second', 60_000);
    const refusal = await other.admit('a').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(OrgShareExceeded);
    expect((refusal as OrgShareExceeded).delaySeconds).toBe(3);
    // Refused after asking three times, a moment apart (a quick job of its own elsewhere may end meanwhile).
    expect(pauses).toEqual([100, 300]);
    expect(calls.filter((call) => call.startsWith('acquire a'))).toHaveLength(4);
    const asked = calls.length;
    await expect(shares.forInvocation('third', 60_000).admit('a')).rejects.toBeInstanceOf(OrgShareExceeded);
    // A job that reads before it admits is refused before it reads (no I/O), unless its invocation holds a place.
    expect(() => shares.forInvocation('fifth', 60_000).checkShare('a')).toThrow(OrgShareExceeded);
    expect(() => holding.checkShare('a')).not.toThrow();
    expect(() => shares.forInvocation('sixth', 60_000).checkShare('b')).not.toThrow();
    expect(calls).toHaveLength(asked);
    // Once the first invocation gives its place back, the organisation is admitted again.
    await holding.releaseAll();
    now += 2_000;
    await expect(shares.forInvocation('fourth', 60_000).admit('a')).resolves.toBeTypeOf('function');
  });

  it('puts a job back after the default wait, doubled once when it comes back, while its hold time is unknown', () => {
    let job: unknown = { orgId: 'a', reportId: 'r' };
    const delays: number[] = [];
    for (let round = 0; round < 5; round++) {
      const deferred = deferredJob(job, { delaySeconds: 2, measured: false });
      delays.push(deferred.delaySeconds);
      job = deferred.job;
    }
    expect(delays).toEqual([2, 4, 4, 4, 4]);
    expect(job).toEqual({ orgId: 'a', reportId: 'r', shareDeferrals: 5 });
  });

  it('puts a job back for about as long as its organisation holds a place once measured: soon for quick work, later for slow', async () => {
    const { leases } = memoryLeases();
    const shares = new OrgShares(
      'pool',
      4,
      leases,
      () => 1_000,
      () => 0.5,
    );

    await shares.give('fast-org', 'x', 800);
    await shares.give('slow-org', 'y', 9_000);
    await shares.give('slow-org', 'y', 9_000);
    const fast = shares.refusal('fast-org');
    const held = shares.refusal('slow-org');
    const unknown = shares.refusal('new-org');

    expect(fast).toMatchObject({ delaySeconds: 0.8, measured: true });
    expect(held).toMatchObject({ delaySeconds: 9, measured: true });
    expect(unknown).toMatchObject({ delaySeconds: 3, measured: false });
    expect(deferredJob({ orgId: 'fast-org', shareDeferrals: 3 }, fast).delaySeconds).toBe(0.8);
  });
  it('gives a place back through a brief outage of the table instead of leaving it taken until the deadline', async () => {
    const { leases, held } = memoryLeases();
    let failures = 2;
    const release = leases.release;
    leases.release = async (lease) => {
      if (failures-- > 0) throw new Error('connect ECONNREFUSED');
      await release(lease);
    };
    const pauses: number[] = [];
    const shares = new OrgShares(
      'pool',
      4,
      leases,
      () => 1_000,
      () => 0.5,
      async (ms) => {
        pauses.push(ms);
      },
    );
    const invocation = shares.forInvocation('inv', 15 * 60_000);

    const leave = await invocation.admit('a');
    await leave();

    expect(held.get('a')?.size).toBe(0);
    expect(pauses).toEqual([200, 400]);
  });
});
