import { describe, expect, it } from 'vitest';
import { NOISY_SMOKE, runNoisyNeighbour } from '#bench/noisy';

/**
 * CONTRACT §18 on one local stack with two organisations: A saturates every shared worker (tarpit receivers that
 * accept and never answer, a message flood to a member-less group, all nine reports, a group flood) while B's
 * deliveries, groups, reports and the events in its feed (§20, read by polling) still arrive, and nothing of A's is
 * lost.
 * Locally every function, and the embedded DynamoDB they all share, runs in this one process on a shared two-core
 * machine, so A's load slows B's every database call in a way separate Lambdas and DynamoDB partitions would not.
 * The bound is therefore wider than P6's goal: 3 × B's own p99 alone in the same run, or 20 s over it, whichever is
 * larger (on a quiet machine B's p99 under A's load is 0.9–1.3 × alone, about 0.1 s; CI runs another test file beside
 * this one, and other work may share the machine); the failure it guards against is B queued behind A's backlog
 * (issue 16: 133.9 s, and growing with A's backlog). bench/RESULTS.md (P6) holds the measured ratios.
 */
const ALLOWANCE_MS = 20_000;

describe('two organisations on shared workers (CONTRACT §18)', () => {
  it("completes B's work without waiting for A's backlog while A saturates every shared worker, and loses nothing of A's", async () => {
    const report = await runNoisyNeighbour({ ...NOISY_SMOKE, samples: 3 });

    for (const measure of ['delivery', 'group', 'report', 'feed'] as const) {
      expect(report.noisy.p99[measure], measure).toBeLessThanOrEqual(
        Math.max(3 * report.alone.p99[measure], report.alone.p99[measure] + ALLOWANCE_MS),
      );
    }
    // A was saturating while B measured, and A's deliveries to the tarpits still wait (pending or retrying) after B
    // is done: B did not wait for A's backlog. None failed or vanished.
    expect(report.saturation.tarpitRequestsHeld).toBeGreaterThan(0);
    expect(report.a.deliveries.failed ?? 0).toBe(0);
    expect((report.a.deliveries.pending ?? 0) + (report.a.deliveries.retrying ?? 0)).toBeGreaterThanOrEqual(
      NOISY_SMOKE.tarpitSubscriptions,
    );
    expect(report.a.reports).toMatchObject({ requested: 9, completed: 9 });
    expect(report.a.groups.created).toBe(report.a.groups.requested);
    expect(report.a.messages.recorded).toBe(report.a.messages.requested);
    // The feed writer took every one of A's events beside B's: a status of each of A's messages, none of B's events.
    expect(report.a.feed).toEqual({ messagesWithStatus: report.a.messages.requested, foreign: 0 });
    // Whether the fair queue flags A here depends on the machine: with spare consumers A's jobs leave at once and no
    // backlog forms to reorder (a quiet CI machine), under load it does. The detection itself is asserted
    // deterministically in test/unit/local/fair-queue.test.ts; P6 reports what it saw (bench/RESULTS.md).
  }, 900_000);
});
