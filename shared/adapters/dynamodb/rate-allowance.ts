/**
 * The most units a container leases from a rate window in one write (CONTRACT §18): a route that only reads costs
 * 1/25 of a write per request for its quota (P5's goal for a poll is at most 0.05), and with K containers at most
 * K × 24 units of a window are leased and left unspent when it fills.
 */
export const LEASE_UNITS = 25;

/**
 * The units one lease asks for under `limit`: a tenth of the limit, at least 1 and at most LEASE_UNITS. Small limits
 * (30 group creations a minute, 2 Meta calls in a test) lease few units, so a container idle after its lease leaves
 * little of the window unusable to the others: at most (chunk − 1) units each.
 */
export function leaseChunk(limit: number): number {
  return Math.max(1, Math.min(RateAllowance.maxLeaseUnits, Math.floor(limit / 10)));
}

/**
 * Takes `want` units of one window from the shared counter in one conditional write if they fit, or fewer (what is
 * left); returns how many it took (0 when the window is full).
 */
export type LeaseUnits = (
  scope: string,
  orgId: string,
  limit: number,
  windowSeconds: number,
  windowStart: number,
  want: number,
) => Promise<number>;

interface Lease {
  windowStart: number;
  /** Unix seconds when the window ends. */
  endsAt: number;
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
 * A container's allowance of the fixed-window counters (CONTRACT §18): it leases units in chunks with one
 * conditional write (`leaseChunk`) and spends them locally, so a request costs a write only once per chunk, and a
 * refusal once the window is full costs nothing. A refund returns the unit to the container's lease, without a write.
 *
 * Bounds, with K containers spending one organisation's window: the shared counter never passes `limit`, and a unit
 * is spent only once leased, so at most `limit` requests are allowed per window (never more, whatever K). A container
 * holds at most chunk − 1 unspent units when the window fills, so every request is allowed until at least
 * limit − K × (chunk − 1) were, and a single container is exact. Leases end with their window.
 */
export class RateAllowance {
  /**
   * LEASE_UNITS, or less for the benchmark's baseline (bench/route-capacity.ts sets 1: a write per request, as the
   * quota cost before leases). Never changed by the service.
   */
  static maxLeaseUnits = LEASE_UNITS;

  readonly #leases = new Map<string, Lease>();

  constructor(private readonly lease: LeaseUnits) {}

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
    const lease = this.#current(`${scope}|${orgId}`, windowStart, windowStart + windowSeconds, nowSeconds);
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
      const want = Math.max(cost - lease.remaining, leaseChunk(limit));
      lease.refill = this.lease(scope, orgId, limit, windowSeconds, windowStart, want)
        .then((granted) => {
          lease.remaining += granted;
          if (granted < want) lease.full = true;
        })
        .finally(() => {
          lease.refill = undefined;
        });
      await lease.refill;
    }
  }

  /** Returns `cost` units taken at `takenAt` to this container's lease, if its window is still the current one. */
  refund(scope: string, orgId: string, windowSeconds: number, takenAt: Date, cost = 1): void {
    const windowStart = Math.floor(takenAt.getTime() / 1000 / windowSeconds) * windowSeconds;
    const lease = this.#leases.get(`${scope}|${orgId}`);
    if (lease?.windowStart === windowStart) lease.remaining += cost;
  }

  #current(key: string, windowStart: number, endsAt: number, nowSeconds: number): Lease {
    const known = this.#leases.get(key);
    if (known && known.windowStart === windowStart) return known;
    const fresh: Lease = { windowStart, endsAt, remaining: 0, full: false };
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
