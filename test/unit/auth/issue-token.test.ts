import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashClientSecret } from '#shared/auth/client-secret';
import { issueToken } from '#shared/domain/auth/issue-token';
import { secretFingerprint } from '#shared/domain/auth/secret-fingerprint';
import type { ClientCredential } from '#shared/domain/orgs/model';
import { InvalidClientError, OrgSuspendedError, TooManyAttemptsError } from '#shared/errors';
import type { AttemptCounter, CredentialStore, LoginAttemptStore } from '#shared/ports/identity-store';
import { MemoryKeyStore } from '#test/support/memory-key-store';

const keyOf = (counter: AttemptCounter) =>
  counter.kind === 'pair' ? `pair#${counter.address}#${counter.id}` : `${counter.kind}#${counter.id}`;

class MemoryIdentity implements CredentialStore, LoginAttemptStore {
  credentials = new Map<string, ClientCredential>();
  attempts = new Map<string, { count: number; windowStartedAt: number }>();
  lookups = 0;

  async createCredential(credential: ClientCredential) {
    this.credentials.set(credential.clientId, credential);
  }
  async getCredential(clientId: string) {
    this.lookups++;
    return this.credentials.get(clientId);
  }
  async claimAttempt(counter: AttemptCounter, now: Date, windowSeconds: number, limit: number) {
    const key = keyOf(counter);
    const nowSeconds = now.getTime() / 1000;
    const entry = this.attempts.get(key);
    if (!entry || entry.windowStartedAt <= nowSeconds - windowSeconds) {
      this.attempts.set(key, { count: 1, windowStartedAt: nowSeconds });
      return { allowed: true as const, windowStartedAt: nowSeconds };
    }
    if (entry.count >= limit) {
      return { allowed: false as const, retryAfterSeconds: entry.windowStartedAt + windowSeconds - nowSeconds };
    }
    entry.count++;
    return { allowed: true as const, windowStartedAt: entry.windowStartedAt };
  }
  async refundAttempt(counter: AttemptCounter, windowStartedAt: number) {
    const entry = this.attempts.get(keyOf(counter));
    if (entry?.windowStartedAt === windowStartedAt && entry.count > 0) entry.count--;
  }
}

const ORG = '3f1c2a4e-8b7d-4c1a-9e2f-0a1b2c3d4e5f';
const ADDRESS = '192.0.2.44';

describe('issueToken', () => {
  let deps: Parameters<typeof issueToken>[0] & { identity: MemoryIdentity };
  let time: Date;

  beforeAll(async () => {
    time = new Date('2026-11-22T10:00:00Z');
    const identity = new MemoryIdentity();
    await identity.createCredential({
      clientId: 'cli_good',
      orgId: ORG,
      roles: ['CRM_ADMIN'],
      secretHash: await hashClientSecret('right'),
      createdAt: time.toISOString(),
    });
    deps = {
      config: {
        jwt: {
          issuer: 'iss',
          audience: 'aud',
          ttlSeconds: 3600,
          keysFile: undefined,
          signingSecretId: undefined,
          publicKeysParameter: undefined,
        },
      },
      clock: { now: () => time },
      identity,
      keys: await MemoryKeyStore.create(),
    };
  });

  it('refuses every client from an address after 100 failures from it within 15 minutes (credential stuffing)', async () => {
    for (let attempt = 0; attempt < 100; attempt++) {
      await expect(
        issueToken(deps, { clientId: `cli_guess_${attempt}`, clientSecret: 'x', sourceIp: '203.0.113.9' }),
      ).rejects.toBeInstanceOf(InvalidClientError);
    }

    const blocked = await issueToken(deps, {
      clientId: 'cli_good',
      clientSecret: 'right',
      sourceIp: '203.0.113.9',
    }).catch((error: unknown) => error);
    const elsewhere = await issueToken(deps, { clientId: 'cli_good', clientSecret: 'right', sourceIp: '198.51.100.7' });

    expect(blocked).toBeInstanceOf(TooManyAttemptsError);
    expect(elsewhere.org).toBe(ORG);
  });

  it('opens again when the window has passed', async () => {
    time = new Date(time.getTime() + 15 * 60 * 1000);

    const token = await issueToken(deps, { clientId: 'cli_good', clientSecret: 'right', sourceIp: '203.0.113.9' });

    expect(token.tokenType).toBe('Bearer');
  });

  it('looks up and checks at most 10 of 50 concurrent wrong attempts for one client; the rest get 429 (A-1)', async () => {
    deps.identity.lookups = 0;

    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, attempt) =>
        issueToken(deps, { clientId: 'cli_good', clientSecret: `wrong-${attempt}`, sourceIp: '192.0.2.1' }).catch(
          (error: unknown) => error,
        ),
      ),
    );

    expect(deps.identity.lookups).toBe(10);
    expect(outcomes.filter((outcome) => outcome instanceof InvalidClientError)).toHaveLength(10);
    expect(outcomes.filter((outcome) => outcome instanceof TooManyAttemptsError)).toHaveLength(40);
  });

  it('does not count a successful attempt: nine failures and a success leave room for one more failure', async () => {
    time = new Date(time.getTime() + 16 * 60 * 1000);
    for (let attempt = 0; attempt < 9; attempt++) {
      await issueToken(deps, { clientId: 'cli_good', clientSecret: 'wrong', sourceIp: ADDRESS }).catch(() => undefined);
    }
    await issueToken(deps, { clientId: 'cli_good', clientSecret: 'right', sourceIp: ADDRESS });

    const tenth = await issueToken(deps, { clientId: 'cli_good', clientSecret: 'wrong', sourceIp: ADDRESS }).catch(
      (error) => error,
    );
    const eleventh = await issueToken(deps, { clientId: 'cli_good', clientSecret: 'right', sourceIp: ADDRESS }).catch(
      (error) => error,
    );

    expect(tenth).toBeInstanceOf(InvalidClientError);
    expect(eleventh).toBeInstanceOf(TooManyAttemptsError);
  });

  it('counts a client id named after an address only against that client id, never the address', async () => {
    time = new Date(time.getTime() + 16 * 60 * 1000);

    for (let attempt = 0; attempt < 10; attempt++) {
      await issueToken(deps, { clientId: 'ip:203.0.113.77', clientSecret: 'x', sourceIp: '198.51.100.1' }).catch(
        () => undefined,
      );
    }

    expect(deps.identity.attempts.get('client#ip:203.0.113.77')?.count).toBe(10);
    expect(deps.identity.attempts.has('address#203.0.113.77')).toBe(false);
  });

  it('locks only the (client id, address) pair after 10 failures: the correct secret from a clean address still gets a token (CONTRACT §18)', async () => {
    time = new Date(time.getTime() + 16 * 60 * 1000);
    for (let attempt = 0; attempt < 10; attempt++) {
      await issueToken(deps, { clientId: 'cli_good', clientSecret: 'wrong', sourceIp: '203.0.113.50' }).catch(
        () => undefined,
      );
    }

    const samePair = await issueToken(deps, {
      clientId: 'cli_good',
      clientSecret: 'right',
      sourceIp: '203.0.113.50',
    }).catch((error: unknown) => error);
    const cleanAddress = await issueToken(deps, {
      clientId: 'cli_good',
      clientSecret: 'right',
      sourceIp: '198.51.100.60',
    });
    const otherClient = await issueToken(deps, {
      clientId: 'cli_other',
      clientSecret: 'x',
      sourceIp: '203.0.113.50',
    }).catch((error: unknown) => error);

    expect(samePair).toBeInstanceOf(TooManyAttemptsError);
    expect((samePair as TooManyAttemptsError).retryAfterSeconds).toBe(15 * 60);
    expect(cleanAddress.org).toBe(ORG);
    expect(otherClient).toBeInstanceOf(InvalidClientError);
  });

  it('counts nothing more against the client id once a pair is locked: one address adds at most 10 failures', async () => {
    time = new Date(time.getTime() + 16 * 60 * 1000);

    for (let attempt = 0; attempt < 60; attempt++) {
      await issueToken(deps, { clientId: 'cli_good', clientSecret: 'wrong', sourceIp: '203.0.113.51' }).catch(
        () => undefined,
      );
    }

    expect(deps.identity.attempts.get('client#cli_good')?.count).toBe(10);
    expect(deps.identity.attempts.get('pair#203.0.113.51#cli_good')?.count).toBe(10);
  });

  it('locks the client id after 100 failures across addresses, its correct secret from a clean address included', async () => {
    time = new Date(time.getTime() + 16 * 60 * 1000);
    for (let address = 0; address < 10; address++) {
      for (let attempt = 0; attempt < 10; attempt++) {
        await issueToken(deps, {
          clientId: 'cli_good',
          clientSecret: 'wrong',
          sourceIp: `203.0.113.${100 + address}`,
        }).catch(() => undefined);
      }
    }

    const locked = await issueToken(deps, {
      clientId: 'cli_good',
      clientSecret: 'right',
      sourceIp: '198.51.100.61',
    }).catch((error: unknown) => error);

    expect(locked).toBeInstanceOf(TooManyAttemptsError);
    expect(deps.identity.attempts.get('pair#198.51.100.61#cli_good')?.count ?? 0).toBe(0);
  });

  it('refuses a revoked credential with INVALID_CLIENT, its right secret included', async () => {
    await deps.identity.createCredential({
      clientId: 'cli_revoked',
      orgId: ORG,
      roles: ['CRM_ADMIN'],
      secretHash: await hashClientSecret('right'),
      createdAt: time.toISOString(),
      revokedAt: time.toISOString(),
    });

    const attempt = issueToken(deps, { clientId: 'cli_revoked', clientSecret: 'right', sourceIp: '192.0.2.10' });

    await expect(attempt).rejects.toBeInstanceOf(InvalidClientError);
  });

  it('accepts the previous secret of a rotated credential until its overlap ends, then only the new one', async () => {
    const newHash = await hashClientSecret('new');
    const oldHash = await hashClientSecret('old');
    await deps.identity.createCredential({
      clientId: 'cli_rotated',
      orgId: ORG,
      roles: ['CRM_ADMIN'],
      secretHash: newHash,
      previousSecretHash: oldHash,
      previousSecretExpiresAt: new Date(time.getTime() + 60_000).toISOString(),
      createdAt: time.toISOString(),
    });
    const later = { ...deps, clock: { now: () => new Date(time.getTime() + 61_000) } };

    const during = await issueToken(deps, { clientId: 'cli_rotated', clientSecret: 'old', sourceIp: '192.0.2.10' });
    const after = await issueToken(later, {
      clientId: 'cli_rotated',
      clientSecret: 'old',
      sourceIp: '192.0.2.10',
    }).catch((error: unknown) => error);
    const fresh = await issueToken(later, { clientId: 'cli_rotated', clientSecret: 'new', sourceIp: '192.0.2.10' });

    expect(during.org).toBe(ORG);
    expect(after).toBeInstanceOf(InvalidClientError);
    expect(fresh.org).toBe(ORG);
    // Each token says which secret issued it, so the previous secret's are refused when the overlap ends (§17).
    expect(decodeJwt(during.accessToken).sfp).toBe(secretFingerprint(oldHash));
    expect(decodeJwt(fresh.accessToken).sfp).toBe(secretFingerprint(newHash));
  });

  it("refuses a suspended organisation's credential with ORG_SUSPENDED, and does not count it as a failure", async () => {
    time = new Date(time.getTime() + 16 * 60 * 1000);
    const suspended = { ...deps, orgStatus: async () => 'suspended' as const };

    const attempt = issueToken(suspended, { clientId: 'cli_good', clientSecret: 'right', sourceIp: '192.0.2.10' });

    await expect(attempt).rejects.toBeInstanceOf(OrgSuspendedError);
    expect(deps.identity.attempts.get('client#cli_good')?.count ?? 0).toBe(0);
  });

  it('refuses the credential of an organisation being erased with INVALID_CLIENT, as if it were gone (CONTRACT §17)', async () => {
    time = new Date(time.getTime() + 16 * 60 * 1000);
    const deleting = { ...deps, orgStatus: async () => 'deleting' as const };

    const attempt = issueToken(deleting, { clientId: 'cli_good', clientSecret: 'right', sourceIp: '192.0.2.10' });

    await expect(attempt).rejects.toBeInstanceOf(InvalidClientError);
  });
});
