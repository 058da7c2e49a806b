import { actingFor } from '#shared/adapters/aws/tenant-scope';
import { logger } from '#shared/observability/logger';
import type { PoolLeases } from '#shared/ports/pool-leases';

/**
 * No organisation holds more than its share of a shared worker pool (CONTRACT §18).
 *
 * A pool is a queue consumer's invocations at once: the event source's MaximumConcurrency as deployed (start:cdk: the
 * environments it runs per function). An invocation runs its batch's records together and ends when the slowest
 * does, so an organisation whose job waits on the outside world (a receiver, Meta) or runs long (a report) holds the
 * whole invocation meanwhile. Each such invocation counts once toward each organisation whose waiting job it runs:
 * the organisation takes a lease for it (one conditional write, shared by all its records in the batch) and gives it
 * back when the invocation ends. A job whose organisation already holds its share is not run: it goes back to its
 * queue with a short delay as a new message (not failed, so never counted toward the DLQ), and waits for its own
 * organisation's invocations to end — never for another's.
 *
 * The share is a quarter of the pool: three organisations at their share still leave a quarter of it to everyone
 * else. With more organisations at their share than that, the share alone cannot keep the pool free; what does is
 * that the long waits do not stay in it (webhook receivers that answer slowly have a pool of their own, the report
 * worker's runs and Meta's answers are bounded by their timeouts): docs/SCALE.md, "Shared worker pools".
 */
export const orgShareOf = (poolSize: number) => Math.max(1, Math.floor(poolSize / 4));

/**
 * How long a job over its organisation's share waits before it is received again, spread ×0.5–1.5: about as long as
 * its organisation holds a place in this pool (what this container measured of its places lately), so that a place
 * freed is taken again soon — a fast organisation's jobs come back within a second or two, and one held up by slow work
 * (a receiver's 10 s) does not make its jobs circle every second. Where this container has not seen the organisation
 * hold a place, OVER_SHARE_DELAY_SECONDS spread ×1–2, doubled once for a job that already came back
 * (MAX_OVER_SHARE_FACTOR).
 */
export const OVER_SHARE_DELAY_SECONDS = 2;
const MAX_OVER_SHARE_FACTOR = 2;
/** The measured hold time's bounds for the delay. */
const MIN_DELAY_MS = 500;
const MAX_DELAY_MS = 10_000;
/** Weight of the newest hold time in the running average. */
const HOLD_WEIGHT = 0.3;
/** A lease outlives its invocation's deadline by this much: a crashed invocation's place frees itself after it. */
const LEASE_MARGIN_MS = 5_000;
/** Tries at giving a place back, and the first pause between them (doubling: about 3 s in all). */
const GIVE_BACK_ATTEMPTS = 5;
const GIVE_BACK_PAUSE_MS = 200;
/** After a refusal this container refuses the organisation without asking the table for this long. */
const REFUSAL_HINT_MS = 1_000;
/**
 * Before a job is refused it asks again after these pauses (spread ×0.5–1.5): an organisation at its share only for the
 * moment one of its quick jobs elsewhere takes (a healthy receiver's answer, two of its events at once) gets its place
 * a few hundred milliseconds later instead of going back to the queue for seconds. An organisation whose places are
 * held by slow work is refused after them, and then for REFUSAL_HINT_MS without asking.
 */
const PATIENCE_MS = [100, 300];

/** Thrown by `admit` when the job's organisation holds its share of the pool: the consumer puts the job back. */
export class OrgShareExceeded extends Error {
  constructor(
    readonly orgId: string,
    readonly pool: string,
    readonly delaySeconds: number,
    /** The delay comes from this container's measure of the organisation's hold time (not the default). */
    readonly measured = false,
  ) {
    super(`organisation ${orgId} holds its share of the ${pool} pool`);
    this.name = 'OrgShareExceeded';
  }
}

/**
 * The copy of a job over its organisation's share that goes back to the queue, and its delay: the job's own fields
 * with `shareDeferrals` counting its returns (the consumers' schemas ignore the field).
 */
export function deferredJob(
  body: unknown,
  error: Pick<OrgShareExceeded, 'delaySeconds' | 'measured'>,
): { job: Record<string, unknown>; delaySeconds: number } {
  const job = { ...(body as Record<string, unknown>) };
  const deferrals = typeof job.shareDeferrals === 'number' ? job.shareDeferrals : 0;
  job.shareDeferrals = deferrals + 1;
  const factor = error.measured ? 1 : Math.min(MAX_OVER_SHARE_FACTOR, 2 ** deferrals);
  return { job, delaySeconds: error.delaySeconds * factor };
}

/** A pool's share as this container sees it: the leases and its hints of organisations refused a moment ago. */
export class OrgShares {
  readonly share: number;
  readonly #refusedUntil = new Map<string, number>();
  /** How long each organisation held a place of this pool lately, in ms (a running average). */
  readonly #holdMs = new Map<string, number>();

  constructor(
    readonly pool: string,
    readonly poolSize: number,
    private readonly leases: PoolLeases,
    private readonly now: () => number = Date.now,
    private readonly random: () => number = Math.random,
    private readonly pause: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {
    this.share = orgShareOf(poolSize);
  }

  /**
   * The places one invocation takes: `invocationId` is its Lambda request id, `deadlineMs` when it is cut at the
   * latest. Release what is left when the invocation ends.
   */
  forInvocation(invocationId: string, deadlineMs: number): InvocationShares {
    return new InvocationShares(this, invocationId, deadlineMs);
  }

  /** Whether this container refused the organisation a moment ago (no I/O): its jobs can go back unread. */
  refusedRecently(orgId: string): boolean {
    return (this.#refusedUntil.get(orgId) ?? 0) > this.now();
  }

  /** @internal the lease of one (invocation, organisation); false when the organisation holds its share. */
  async take(orgId: string, leaseId: string, deadlineMs: number): Promise<boolean> {
    if (this.refusedRecently(orgId)) return false;
    const lease = { orgId, pool: this.pool, leaseId };
    for (let round = 0; round <= PATIENCE_MS.length; round++) {
      if (round > 0) await this.pause(PATIENCE_MS[round - 1]! * (0.5 + this.random()));
      if (round > 0 && this.refusedRecently(orgId)) break;
      const now = this.now();
      const terms = { share: this.share, untilMs: deadlineMs + LEASE_MARGIN_MS, nowMs: now };
      // The leases live in the organisation's partition: its credentials (CONTRACT §25), wherever this runs from.
      if (await actingFor(orgId, () => this.leases.acquire(lease, terms))) {
        this.#refusedUntil.delete(orgId);
        return true;
      }
    }
    if (this.#refusedUntil.size >= 10_000) this.#refusedUntil.clear();
    this.#refusedUntil.set(orgId, this.now() + REFUSAL_HINT_MS);
    return false;
  }

  /** @internal `heldMs`: how long the place was held. */
  async give(orgId: string, leaseId: string, heldMs?: number): Promise<void> {
    this.#refusedUntil.delete(orgId);
    if (heldMs !== undefined) {
      const before = this.#holdMs.get(orgId);
      if (this.#holdMs.size >= 10_000) this.#holdMs.clear();
      this.#holdMs.set(orgId, before === undefined ? heldMs : before + HOLD_WEIGHT * (heldMs - before));
    }
    await actingFor(orgId, () => this.leases.release({ orgId, pool: this.pool, leaseId }));
  }

  /** @internal */
  pauseFor(ms: number): Promise<void> {
    return this.pause(ms);
  }

  /** @internal the refusal of a job: its put-back delay, spread so that a refused batch does not come back at once. */
  refusal(orgId: string): OrgShareExceeded {
    const held = this.#holdMs.get(orgId);
    if (held === undefined)
      return new OrgShareExceeded(orgId, this.pool, OVER_SHARE_DELAY_SECONDS * (1 + this.random()));
    const delayMs = Math.min(MAX_DELAY_MS, Math.max(MIN_DELAY_MS, held)) * (0.5 + this.random());
    return new OrgShareExceeded(orgId, this.pool, delayMs / 1000, true);
  }
}

/** An organisation's place in one invocation: its lease, the jobs in it, and since when. */
interface Place {
  taken: Promise<boolean>;
  leaseId: string;
  active: number;
  since: number;
}

/**
 * The organisations' places in one invocation. An organisation holds the invocation while any of its admitted jobs
 * runs there: its first job takes the place (a lease), the others join it, and the last to finish gives it back — not
 * the invocation's end, which another organisation's slow job may hold up: an organisation is never charged for an
 * invocation that only another holds.
 */
export class InvocationShares {
  readonly #orgs = new Map<string, Place>();
  #leases = 0;

  constructor(
    private readonly shares: OrgShares,
    private readonly invocationId: string,
    private readonly deadlineMs: number,
  ) {}

  /**
   * Takes (or joins) the organisation's place in this invocation for one job; the answer gives it back (call it when
   * the job ends).
   * @throws OrgShareExceeded when it holds its share; the table's error when the lease could not be asked for (the
   *   job then fails and is retried like any failure: an outage never makes jobs circle without counting)
   */
  async admit(orgId: string): Promise<() => Promise<void>> {
    let entry = this.#orgs.get(orgId);
    if (!entry) {
      // A lease id per place taken: a place given back and taken again in one invocation is another lease.
      const leaseId = `${this.invocationId}:${this.#leases++}`;
      const since = Date.now();
      entry = { taken: this.shares.take(orgId, leaseId, this.deadlineMs), leaseId, active: 0, since };
      this.#orgs.set(orgId, entry);
    }
    entry.active += 1;
    const held = entry;
    const leave = () => this.#leave(orgId, held);
    let taken: boolean;
    try {
      taken = await held.taken;
    } catch (error) {
      await leave();
      throw error;
    }
    if (!taken) {
      await leave();
      throw this.shares.refusal(orgId);
    }
    let left = false;
    return async () => {
      if (left) return;
      left = true;
      await leave();
    };
  }

  /**
   * Refuses at once, without asking the table, an organisation this container refused a moment ago: a job can check
   * this before it reads anything.
   * @throws OrgShareExceeded
   */
  checkShare(orgId: string): void {
    if (!this.#orgs.has(orgId) && this.shares.refusedRecently(orgId)) {
      throw this.shares.refusal(orgId);
    }
  }

  /** Gives back every place still held (the invocation ends); a failure only leaves the lease to end by itself. */
  async releaseAll(): Promise<void> {
    const held = [...this.#orgs].map(([orgId, entry]) => {
      entry.active = 1;
      return this.#leave(orgId, entry);
    });
    await Promise.all(held);
  }

  async #leave(orgId: string, entry: Place): Promise<void> {
    entry.active -= 1;
    if (entry.active > 0) return;
    if (this.#orgs.get(orgId) === entry) this.#orgs.delete(orgId);
    if (!(await entry.taken.catch(() => false))) return;
    const heldMs = Date.now() - entry.since;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.shares.give(orgId, entry.leaseId, heldMs);
        return;
      } catch (error) {
        // A brief outage of the table must not leave the place taken until the invocation's deadline (a report
        // worker's is 15 minutes away): try again for a few seconds before leaving it to end by itself.
        if (attempt + 1 >= GIVE_BACK_ATTEMPTS) {
          logger.warn('pool lease not given back; it ends by itself', {
            pool: this.shares.pool,
            orgId,
            error: error as Error,
          });
          return;
        }
        await this.shares.pauseFor(GIVE_BACK_PAUSE_MS * 2 ** attempt);
      }
    }
  }
}
