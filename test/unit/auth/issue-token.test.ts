import { beforeAll, describe, expect, it } from 'vitest';
import { hashClientSecret } from '#shared/auth/client-secret';
import { issueToken } from '#shared/domain/auth/issue-token';
import type { ClientCredential } from '#shared/domain/orgs/model';
import { InvalidClientError, TooManyAttemptsError } from '#shared/errors';
import type { CredentialStore, LoginAttemptStore } from '#shared/ports/identity-store';
import { MemoryKeyStore } from '#test/support/memory-key-store';

class MemoryIdentity implements CredentialStore, LoginAttemptStore {
  credentials = new Map<string, ClientCredential>();
  attempts = new Map<string, { count: number; windowStartedAt: Date }>();

  async createCredential(credential: ClientCredential) {
    this.credentials.set(credential.clientId, credential);
  }
  async getCredential(clientId: string) {
    return this.credentials.get(clientId);
  }
  async failures(key: string, now: Date, windowSeconds: number) {
    const entry = this.attempts.get(key);
    if (!entry || entry.windowStartedAt.getTime() <= now.getTime() - windowSeconds * 1000)
      return { count: 0, windowStartedAt: now };
    return entry;
  }
  async recordFailure(key: string, now: Date, windowSeconds: number) {
    const current = await this.failures(key, now, windowSeconds);
    this.attempts.set(key, {
      count: current.count + 1,
      windowStartedAt: current.count === 0 ? now : current.windowStartedAt,
    });
  }
  async clear(key: string) {
    this.attempts.delete(key);
  }
}

const ORG = '3f1c2a4e-8b7d-4c1a-9e2f-0a1b2c3d4e5f';

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
});
