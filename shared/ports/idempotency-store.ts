/** A stored successful answer, replayed for a repeated Idempotency-Key. */
export interface StoredResponse {
  statusCode: number;
  body: unknown;
  headers: Record<string, string>;
}

export type IdempotencyClaim =
  /** `reservedId`: the id this key and body stand for, the same on every claim until the key is forgotten. */
  | { outcome: 'claimed'; reservedId: string }
  | { outcome: 'completed'; fingerprint: string; response: StoredResponse }
  | { outcome: 'in-progress'; fingerprint: string };

export interface IdempotencyStore {
  /**
   * Claims (orgId, key) for a request with `fingerprint`, in one conditional write: it succeeds when the key is new,
   * was freed, its in-flight marker expired, or its stored answer expired. Otherwise returns what holds the key.
   * A claim reserves `candidateId` for the (key, fingerprint), unless an earlier claim of them reserved one: a
   * call that failed after it created something is retried under the same id, so the retry finds it.
   */
  claim(
    orgId: string,
    key: string,
    fingerprint: string,
    now: Date,
    inFlightSeconds: number,
    keepSeconds: number,
    candidateId: string,
  ): Promise<IdempotencyClaim>;
  complete(
    orgId: string,
    key: string,
    fingerprint: string,
    response: StoredResponse,
    now: Date,
    keepSeconds: number,
  ): Promise<void>;
  /** Frees a key whose call failed (its reserved ids are kept). */
  release(orgId: string, key: string, fingerprint: string): Promise<void>;
}

/** A fixed-window counter per (scope, organisation). */
export interface RateLimiter {
  /**
   * Counts `cost` units (default 1); returns false (with the seconds until the window ends), counting nothing, when
   * they do not fit under the limit. Never more than `limit` units in a window, however many containers count; a
   * limit of at most EXACT_LIMIT_MAX (600) units is exact: a caller under it is never refused.
   */
  take(
    scope: string,
    orgId: string,
    limit: number,
    windowSeconds: number,
    now: Date,
    cost?: number,
  ): Promise<{ allowed: boolean; retryAfterSeconds: number }>;
  /**
   * Takes back `cost` units counted at `takenAt` under `limit` (same window), never below zero; a window already gone
   * is left.
   */
  refund(
    scope: string,
    orgId: string,
    limit: number,
    windowSeconds: number,
    takenAt: Date,
    cost?: number,
  ): Promise<void>;
}
