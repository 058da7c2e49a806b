import { createHash } from 'node:crypto';
import { DomainError } from '#shared/errors';
import type { Clock } from '#shared/ports/clock';
import type { IdempotencyStore, StoredResponse } from '#shared/ports/idempotency-store';
import type { IdGenerator } from '#shared/ports/ids';

export const IDEMPOTENCY_KEEP_SECONDS = 24 * 3600;
export const IDEMPOTENCY_IN_FLIGHT_SECONDS = 60;

/** JSON with object keys sorted, so that deep-equal bodies give the same fingerprint. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export interface IdempotentResult {
  response: StoredResponse;
  replayed: boolean;
}

/**
 * Runs `action` at most once per (organisation, Idempotency-Key) within 24 h (CONTRACT §4), and gives it the id of
 * what it creates (prefix `idPrefix`).
 * 1. Without a key, just run the action with a new id.
 * 2. Claim the key with the request's fingerprint (operation + canonical body) in one conditional write. The claim
 *    reserves the id for this key and body: a call that failed after it created something left the key free but the
 *    id reserved, so its retry works on the same id and finds what the failed call made instead of making another.
 * 3. Held by a completed call: same fingerprint → replay its answer; other fingerprint → 422 IDEMPOTENCY_KEY_REUSED.
 *    Held by a call in flight (marker younger than 60 s) → 409 IDEMPOTENCY_KEY_IN_USE (422 if the body differs).
 * 4. Run the action; store a 2xx answer, or free the key when it failed.
 */
export async function idempotent(
  deps: { clock: Clock; limits: IdempotencyStore; ids: IdGenerator },
  input: { orgId: string; key: string | undefined; operation: string; body: unknown; idPrefix: string },
  action: (id: string) => Promise<StoredResponse>,
): Promise<IdempotentResult> {
  if (input.key === undefined) return { response: await action(deps.ids.next(input.idPrefix)), replayed: false };
  const fingerprint = createHash('sha256')
    .update(`${input.operation}\n${canonicalJson(input.body)}`)
    .digest('base64url');
  const claim = await deps.limits.claim(
    input.orgId,
    input.key,
    fingerprint,
    deps.clock.now(),
    IDEMPOTENCY_IN_FLIGHT_SECONDS,
    IDEMPOTENCY_KEEP_SECONDS,
    deps.ids.next(input.idPrefix),
  );
  if (claim.outcome !== 'claimed') {
    if (claim.fingerprint !== fingerprint) {
      throw new DomainError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used with a different request');
    }
    if (claim.outcome === 'completed') return { response: claim.response, replayed: true };
    throw new DomainError('IDEMPOTENCY_KEY_IN_USE', 'a request with this Idempotency-Key is still in progress', {
      retryAfterSeconds: 1,
    });
  }
  let response: StoredResponse;
  try {
    response = await action(claim.reservedId);
  } catch (error) {
    await deps.limits.release(input.orgId, input.key, fingerprint);
    throw error;
  }
  if (response.statusCode >= 200 && response.statusCode < 300) {
    await deps.limits.complete(
      input.orgId,
      input.key,
      fingerprint,
      response,
      deps.clock.now(),
      IDEMPOTENCY_KEEP_SECONDS,
    );
  } else {
    await deps.limits.release(input.orgId, input.key, fingerprint);
  }
  return { response, replayed: false };
}
