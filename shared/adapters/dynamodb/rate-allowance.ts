/**
 * The most units a container leases from a rate window in one write (CONTRACT §18): a route that only reads costs
 * 1/25 of a write per request for its quota once its container is busy (P5's goal for a poll is at most 0.05).
 */
export const LEASE_UNITS = 25;

/**
 * Limits of at most this many units per window are counted exactly: one conditional write per counted request on the
 * window's shared counter, no lease, so a caller under the limit is never refused whatever the number of containers.
 *
 * Why 600: exact counting costs one write per counted unit, at most `limit` successful writes per organisation and
 * window (plus one failed conditional write per refusal, which the organisation's request quota bounds). Every limit
 * the contract states as a number a caller is meant to reach is counted on requests that already write several items
 * or call Meta — group creations (30/60: the request and its queue message), message sends and invitations (600/60:
 * the message, its outbox entry and its queue message), webhook redeliveries (60/3600), the calls that reach Meta
 * (NETWORK_CALL_RATE_LIMIT 120/60) — so one more write is a small part of what they cost. The one limit above it, the
 * organisation's request quota (ORG_REQUEST_RATE_LIMIT 1200/60), counts every route, reads and polls included, where a
 * write per request would be most of the request's cost: it is leased. Below 600 a lease would also buy little: a
 * container holds up to LEASE_UNITS − 1 units it may never spend, which at 600 is already 4 % of the limit for each.
 */
export const EXACT_LIMIT_MAX = 600;

/** True when a limit is counted exactly (a write per request) rather than leased. */
export const countsExactly = (limit: number) => limit <= EXACT_LIMIT_MAX;

/**
 * The units a container's next lease of a window asks for, after it leased `leased` units of that window: one more
 * than all it leased before, at most LEASE_UNITS — 1, 2, 4, 8, 16, 25, 25 … A container asks only once it spent what it
 * leased, so after n requests of the window it holds at most min(LEASE_UNITS − 1, n − 1) units unspent (see
 * RateAllowance for what that bounds).
 */
export function nextLeaseUnits(leased: number): number {
  return Math.max(1, Math.min(RateAllowance.maxLeaseUnits, leased + 1));
}

/**
 * A container's next lease: nextLeaseUnits, and no more than the room left under the limit shared among the window's
 * lease holders (room ÷ (2 × holders), at least 1, as its last lease write saw them). Growth bounds what a container
 * that goes quiet leaves unspent; the share of the room bounds what busy containers hold as the window fills, so
 * that traffic spread over many containers is refused only close to the limit (with 2 to 100 containers taking turns,
 * within 4 % of 1200, 2.5 % with 50: test/unit/limits/rate-allowance.test.ts, test/integration/quota-leases.test.ts),
 * for a few more writes as the window fills.
 */
function leaseUnits(lease: { leased: number; room: number; holders: number }): number {
  return Math.max(1, Math.min(nextLeaseUnits(lease.leased), Math.floor(lease.room / (2 * Math.max(1, lease.holders)))));
}

/**
 * The farthest below `limit` a window's first refusal can come with `containers` containers counting it (leased mode).
 * A refusal means the shared counter is full and the refused container spent all it leased, so the units not yet
 * spent are the other containers'. Each holds at most min(LEASE_UNITS − 1, n − 1) after its n requests, so with N
 * requests allowed: limit − N ≤ min(24 × (K − 1), N − K), hence limit − N ≤ min(24 × (K − 1), ⌊(limit − K) / 2⌋).
 * For the default ORG_REQUEST_RATE_LIMIT (1200/60): 0 with one container, 216 with 10, 575 with 50 — never more than
 * half the limit, whatever K. Exact limits: 0.
 */
export function refusalDistance(limit: number, containers: number): number {
  if (countsExactly(limit)) return 0;
  const k = Math.max(1, containers);
  return Math.max(0, Math.min((RateAllowance.maxLeaseUnits - 1) * (k - 1), Math.floor((limit - k) / 2)));
}

/** The shared counter of each (scope, organisation, window), as DynamoLimits keeps it in the table. */
export interface RateCounter {
  /**
   * Adds up to `want` units to the window's counter without passing `limit` (what is left when fewer fit), and counts
   * this container among the window's lease holders when `newHolder`. Returns the units added (0 when the window is
   * full) and the counter as the write left it: the room under the limit and the number of holders.
   */
  lease(
    scope: string,
    orgId: string,
    limit: number,
    windowSeconds: number,
    windowStart: number,
    want: number,
    newHolder: boolean,
  ): Promise<LeaseGrant>;
  /** Adds exactly `units` if they fit under `limit`, in one conditional write; false (nothing added) otherwise. */
  count(
    scope: string,
    orgId: string,
    limit: number,
    windowSeconds: number,
    windowStart: number,
    units: number,
  ): Promise<boolean>;
  /** Takes `units` back from the window's counter, never below zero. */
  uncount(scope: string, orgId: string, windowStart: number, units: number): Promise<void>;
}

export interface LeaseGrant {
  granted: number;
  /** limit − the counter after the write. */
  room: number;
  /** Containers that leased from the window so far. */
  holders: number;
}

interface Lease {
  windowStart: number;
  /** Unix seconds when the window ends. */
  endsAt: number;
  /** Units leased by this container in this window (what its next lease grows from). */
  leased: number;
  /** The window's room and lease holders as this container's last lease write saw them. */
  room: number;
  holders: number;
  /** Units leased and not spent yet. */
  remaining: number;
  /** The shared counter had no more room the last time it was asked: refuse without asking until the window ends. */
  full: boolean;
  /** A lease write in flight for this window: requests of this container wait for it rather than write their own. */
  refill?: Promise<void>;
}

/** Entries kept before windows that ended are forgotten. */
const MAX_LEASES = 1000;

/**
 * A container's allowance of the fixed-window counters (CONTRACT §13, §18). Two modes, by the limit:
 * - Exact (limit ≤ EXACT_LIMIT_MAX): each request adds its units to the shared counter in one conditional write, and
 *   a refund takes them back from it. The counter is the truth: a caller under the limit is never refused and nobody
 *   passes it, whatever the number of containers.
 * - Leased (larger limits): the container leases units with one conditional write and spends them locally, so a
 *   request costs a write only once per lease, and a refusal once the window is full costs nothing. A refund returns
 *   the unit to the container's lease, without a write. Leases grow per container and window (nextLeaseUnits:
 *   1, 2, 4, 8, 16, 25 …), so a container that serves the organisation a few times leases only what it spends.
 *
 * Bounds of the leased mode, with K containers spending one organisation's window: the shared counter never passes
 * `limit`, and a unit is spent only once leased, so at most `limit` requests are allowed per window (never more,
 * whatever K). A container holds at most min(LEASE_UNITS − 1, n − 1) unspent units after n requests (a refunded one
 * counted among them), so no request is refused before limit − refusalDistance(limit, K) were allowed: at most
 * 24 × (K − 1) below the limit and never more than half of it. A single container is exact. Leases end with their
 * window.
 */
export class RateAllowance {
  /**
   * LEASE_UNITS, or less for the benchmark's baseline (bench/route-capacity.ts sets 1: a write per request, as the
   * quota cost before leases). Never changed by the service.
   */
  static maxLeaseUnits = LEASE_UNITS;

  readonly #leases = new Map<string, Lease>();

  constructor(private readonly counter: RateCounter) {}

  async take(
    scope: string,
    orgId: string,
    limit: number,
    windowSeconds: number,
    now: Date,
    cost = 1,
  ): Promise<{ allowed: boolean; retryAfterSeconds: number }> {
    const nowSeconds = now.getTime() / 1000;
    const windowStart = Math.floor(nowSeconds / windowSeconds) * windowSeconds;
    const retryAfterSeconds = Math.max(1, Math.ceil(windowStart + windowSeconds - nowSeconds));
    if (cost > limit) return { allowed: false, retryAfterSeconds };
    if (countsExactly(limit)) {
      const allowed = await this.counter.count(scope, orgId, limit, windowSeconds, windowStart, cost);
      return { allowed, retryAfterSeconds };
    }
    const lease = this.#current(`${scope}|${orgId}`, limit, windowStart, windowStart + windowSeconds, nowSeconds);
    for (;;) {
      if (lease.remaining >= cost) {
        lease.remaining -= cost;
        return { allowed: true, retryAfterSeconds };
      }
      if (lease.full) return { allowed: false, retryAfterSeconds };
      if (lease.refill) {
        await lease.refill;
        continue;
      }
      const want = Math.max(cost - lease.remaining, leaseUnits(lease));
      lease.refill = this.counter
        .lease(scope, orgId, limit, windowSeconds, windowStart, want, lease.leased === 0)
        .then(({ granted, room, holders }) => {
          lease.leased += granted;
          lease.remaining += granted;
          lease.room = room;
          lease.holders = holders;
          if (granted < want) lease.full = true;
        })
        .finally(() => {
          lease.refill = undefined;
        });
      await lease.refill;
    }
  }

  /**
   * Takes back `cost` units taken at `takenAt` under `limit`: from the shared counter when counted exactly, else into
   * this container's lease if its window is still the current one. A window already gone is left.
   */
  async refund(
    scope: string,
    orgId: string,
    limit: number,
    windowSeconds: number,
    takenAt: Date,
    cost = 1,
  ): Promise<void> {
    const windowStart = Math.floor(takenAt.getTime() / 1000 / windowSeconds) * windowSeconds;
    if (countsExactly(limit)) {
      await this.counter.uncount(scope, orgId, windowStart, cost);
      return;
    }
    const lease = this.#leases.get(`${scope}|${orgId}`);
    if (lease?.windowStart === windowStart) lease.remaining += cost;
  }

  #current(key: string, limit: number, windowStart: number, endsAt: number, nowSeconds: number): Lease {
    const known = this.#leases.get(key);
    if (known && known.windowStart === windowStart) return known;
    const fresh: Lease = { windowStart, endsAt, leased: 0, room: limit, holders: 1, remaining: 0, full: false };
    // A request dated in a window before the one this container already leases from (a clock step back) leases for
    // itself and keeps the newer lease.
    if (known && known.windowStart > windowStart) return fresh;
    if (!known && this.#leases.size >= MAX_LEASES) {
      for (const [other, lease] of this.#leases) if (lease.endsAt <= nowSeconds) this.#leases.delete(other);
    }
    this.#leases.set(key, fresh);
    return fresh;
  }
}
