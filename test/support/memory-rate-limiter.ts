import type { RateLimiter } from '#shared/ports/idempotency-store';

/** Fixed windows in memory, with the semantics of DynamoLimits (a refused take counts nothing). */
export class MemoryRateLimiter implements RateLimiter {
  readonly hits = new Map<string, number>();

  async take(scope: string, orgId: string, limit: number, windowSeconds: number, now: Date, cost = 1) {
    const seconds = now.getTime() / 1000;
    const start = Math.floor(seconds / windowSeconds) * windowSeconds;
    const retryAfterSeconds = Math.max(1, Math.ceil(start + windowSeconds - seconds));
    const key = `${scope}#${orgId}#${start}`;
    const used = this.hits.get(key) ?? 0;
    if (used + cost > limit) return { allowed: false, retryAfterSeconds };
    this.hits.set(key, used + cost);
    return { allowed: true, retryAfterSeconds };
  }

  async refund(scope: string, orgId: string, _limit: number, windowSeconds: number, takenAt: Date, cost = 1) {
    const start = Math.floor(takenAt.getTime() / 1000 / windowSeconds) * windowSeconds;
    const key = `${scope}#${orgId}#${start}`;
    const used = this.hits.get(key) ?? 0;
    if (used >= cost) this.hits.set(key, used - cost);
  }

  /** Units counted in the current window of `scope` for `orgId`. */
  used(scope: string, orgId: string): number {
    let total = 0;
    for (const [key, count] of this.hits) if (key.startsWith(`${scope}#${orgId}#`)) total += count;
    return total;
  }
}
