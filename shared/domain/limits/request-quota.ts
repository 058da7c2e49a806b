import type { Config } from '#shared/config/env';
import { RateLimitedError } from '#shared/errors';
import type { Clock } from '#shared/ports/clock';
import type { RateLimiter } from '#shared/ports/idempotency-store';

/** The rate-window scopes of the per-organisation quotas (their partitions: keys.ts `limitKeys.rateWindow`). */
export const REQUEST_QUOTA_SCOPE = 'org-requests';
export const NETWORK_CALL_QUOTA_SCOPE = 'network-calls';

export interface RequestQuotaDeps {
  config: { quotas: Pick<Config['quotas'], 'requests' | 'networkCalls'> };
  clock: Clock;
  limits: RateLimiter;
}

/** What a request was charged, so that a refusal before the limits can take it back. */
export interface RequestCharge {
  orgId: string;
  at: Date;
  scopes: string[];
}

/**
 * Counts one authenticated request against its organisation's quotas (CONTRACT §18).
 * 1. Count it against ORG_REQUEST_RATE_LIMIT; over it → 429 RATE_LIMITED with Retry-After, nothing else counted.
 * 2. If the request calls Meta, count it against NETWORK_CALL_RATE_LIMIT too; over it → 429 RATE_LIMITED (the
 *    request stays counted in step 1: it reached the limits).
 * The request quota is leased (shared/adapters/dynamodb/rate-allowance.ts): about one write per 25 requests of a busy
 * container, and concurrent requests never overshoot a limit; the network-call quota (120/60 by default, at most
 * EXACT_LIMIT_MAX) is counted exactly.
 */
export async function chargeRequest(
  deps: RequestQuotaDeps,
  input: { orgId: string; callsNetwork: boolean },
): Promise<RequestCharge> {
  const at = deps.clock.now();
  const charge: RequestCharge = { orgId: input.orgId, at, scopes: [] };
  const { requests, networkCalls } = deps.config.quotas;
  const quotas: [string, { limit: number; windowSeconds: number }, string][] = [
    [REQUEST_QUOTA_SCOPE, requests, 'requests'],
  ];
  if (input.callsNetwork) quotas.push([NETWORK_CALL_QUOTA_SCOPE, networkCalls, 'requests that call the network']);
  for (const [scope, { limit, windowSeconds }, what] of quotas) {
    const quota = await deps.limits.take(scope, input.orgId, limit, windowSeconds, at);
    if (!quota.allowed) {
      throw new RateLimitedError(
        `at most ${limit} ${what} per ${windowSeconds} s for this organisation`,
        quota.retryAfterSeconds,
      );
    }
    charge.scopes.push(scope);
  }
  return charge;
}

/** Takes back what `chargeRequest` counted. */
export async function refundRequest(deps: RequestQuotaDeps, charge: RequestCharge): Promise<void> {
  const { requests, networkCalls } = deps.config.quotas;
  const quotas: Record<string, { limit: number; windowSeconds: number }> = {
    [REQUEST_QUOTA_SCOPE]: requests,
    [NETWORK_CALL_QUOTA_SCOPE]: networkCalls,
  };
  await Promise.all(
    charge.scopes.flatMap((scope) => {
      const quota = quotas[scope];
      return quota ? [deps.limits.refund(scope, charge.orgId, quota.limit, quota.windowSeconds, charge.at)] : [];
    }),
  );
}
