import { describe, expect, it } from 'vitest';
import {
  chargeRequest,
  NETWORK_CALL_QUOTA_SCOPE,
  REQUEST_QUOTA_SCOPE,
  refundRequest,
} from '#shared/domain/limits/request-quota';
import { RateLimitedError } from '#shared/errors';
import { MemoryRateLimiter } from '#test/support/memory-rate-limiter';

const ORG_A = '3f1c2a4e-8b7d-4c1a-9e2f-0a1b2c3d4e5f';
const ORG_B = '7a2b3c4d-5e6f-4a1b-8c2d-3e4f5a6b7c8d';

function setup() {
  const limits = new MemoryRateLimiter();
  const deps = {
    config: {
      quotas: { requests: { limit: 3, windowSeconds: 60 }, networkCalls: { limit: 1, windowSeconds: 60 } },
    },
    clock: { now: () => new Date('2026-11-24T18:00:10Z') },
    limits,
  };
  return { deps, limits };
}

describe('chargeRequest', () => {
  it('refuses the request over ORG_REQUEST_RATE_LIMIT with RATE_LIMITED and the seconds left in the window', async () => {
    const { deps } = setup();
    for (let index = 0; index < 3; index++) await chargeRequest(deps, { orgId: ORG_A, callsNetwork: false });

    const refused = await chargeRequest(deps, { orgId: ORG_A, callsNetwork: false }).catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(RateLimitedError);
    expect(refused).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: 50 });
  });

  it("counts each organisation on its own: A's exhausted quota leaves B's untouched", async () => {
    const { deps } = setup();
    for (let index = 0; index < 3; index++) await chargeRequest(deps, { orgId: ORG_A, callsNetwork: false });

    const charge = await chargeRequest(deps, { orgId: ORG_B, callsNetwork: false });

    expect(charge.scopes).toEqual([REQUEST_QUOTA_SCOPE]);
  });

  it('counts a request that calls Meta against NETWORK_CALL_RATE_LIMIT too, and refuses the one over it', async () => {
    const { deps, limits } = setup();

    const first = await chargeRequest(deps, { orgId: ORG_A, callsNetwork: true });
    const second = await chargeRequest(deps, { orgId: ORG_A, callsNetwork: true }).catch((error: unknown) => error);
    const plain = await chargeRequest(deps, { orgId: ORG_A, callsNetwork: false });

    expect(first.scopes).toEqual([REQUEST_QUOTA_SCOPE, NETWORK_CALL_QUOTA_SCOPE]);
    expect(second).toMatchObject({ code: 'RATE_LIMITED' });
    expect(plain.scopes).toEqual([REQUEST_QUOTA_SCOPE]);
    expect(limits.used(NETWORK_CALL_QUOTA_SCOPE, ORG_A)).toBe(1);
    expect(limits.used(REQUEST_QUOTA_SCOPE, ORG_A)).toBe(3);
  });

  it('counts nothing against the network quota when the organisation quota already refused', async () => {
    const { deps, limits } = setup();
    for (let index = 0; index < 3; index++) await chargeRequest(deps, { orgId: ORG_A, callsNetwork: false });

    await chargeRequest(deps, { orgId: ORG_A, callsNetwork: true }).catch(() => undefined);

    expect(limits.used(NETWORK_CALL_QUOTA_SCOPE, ORG_A)).toBe(0);
  });
});

describe('refundRequest', () => {
  it('takes back every quota the request was charged, so the next request fits again', async () => {
    const { deps, limits } = setup();
    await chargeRequest(deps, { orgId: ORG_A, callsNetwork: false });
    await chargeRequest(deps, { orgId: ORG_A, callsNetwork: false });
    const charge = await chargeRequest(deps, { orgId: ORG_A, callsNetwork: true });

    await refundRequest(deps, charge);
    const again = await chargeRequest(deps, { orgId: ORG_A, callsNetwork: true });

    expect(again.scopes).toEqual([REQUEST_QUOTA_SCOPE, NETWORK_CALL_QUOTA_SCOPE]);
    expect(limits.used(REQUEST_QUOTA_SCOPE, ORG_A)).toBe(3);
  });
});
