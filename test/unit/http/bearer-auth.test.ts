import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { signAccessToken } from '#shared/auth/access-token';
import { activateKey, addKey, retireKey } from '#shared/auth/key-set';
import { accessStatus } from '#shared/config/access';
import { clock, config } from '#shared/config/core';
import { provide, resetDeps } from '#shared/config/instances';
import { verificationKeyStore } from '#shared/config/keys';
import { AccessStatusCache } from '#shared/domain/auth/access-status';
import { secretFingerprint } from '#shared/domain/auth/secret-fingerprint';
import type { ClientCredential, Organisation, OrgStatusCopy } from '#shared/domain/orgs/model';
import { OrgGoneError, OrgSuspendedError, UnauthorizedError } from '#shared/errors';
import { authenticateBearer } from '#shared/http/bearer-auth';
import { MemoryKeyStore } from '#test/support/memory-key-store';

const ORG = '3f1c2a4e-8b7d-4c1a-9e2f-0a1b2c3d4e5f';
const subject = { clientId: 'cli_1', orgId: ORG, roles: ['CRM_ADMIN' as const] };

describe('authenticateBearer', () => {
  let keys: MemoryKeyStore;
  let credential: ClientCredential | undefined;
  let orgStatus: OrgStatusCopy | undefined;
  let orgRecord: Pick<Organisation, 'status' | 'deletingAt'> | undefined;
  const time = { now: new Date('2026-11-22T10:00:00Z') };
  const advance = (seconds: number) => {
    time.now = new Date(time.now.getTime() + seconds * 1000);
  };

  beforeEach(async () => {
    keys = await MemoryKeyStore.create();
    time.now = new Date('2026-11-22T10:00:00Z');
    provide(verificationKeyStore, keys);
    provide(clock, { now: () => time.now });
    credential = { ...subject, secretHash: 'scrypt$x', createdAt: '2026-11-01T00:00:00Z' };
    orgStatus = 'active';
    orgRecord = {};
    const store = {
      getCredential: async () => credential,
      getOrgStatus: async () => orgStatus,
      getOrgRecord: async () => orgRecord,
    };
    provide(accessStatus, new AccessStatusCache(store, 30_000, () => time.now.getTime()));
  });

  afterEach(() => {
    resetDeps();
  });

  it('returns the principal of a valid bearer token, again on a repeated call', async () => {
    const token = await signAccessToken(keys, config().jwt, subject, time.now);

    const first = await authenticateBearer(`Bearer ${token}`);
    const second = await authenticateBearer(`Bearer ${token}`);

    expect(first).toMatchObject({ clientId: 'cli_1', orgId: ORG, roles: ['CRM_ADMIN'] });
    expect(second).toEqual(first);
  });

  it('refuses a token it accepted before once the token has expired, even within the minute', async () => {
    const issuedAt = new Date(time.now.getTime() - (config().jwt.ttlSeconds - 10) * 1000);
    const token = await signAccessToken(keys, config().jwt, subject, issuedAt);
    await authenticateBearer(`Bearer ${token}`);

    advance(10 + 31);

    await expect(authenticateBearer(`Bearer ${token}`)).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('refuses a token of a retired key at the latest a minute after it last accepted it', async () => {
    const oldKid = keys.set.activeKid;
    const token = await signAccessToken(keys, config().jwt, subject, time.now);
    await authenticateBearer(`Bearer ${token}`);
    keys.set = await addKey(keys.set);
    keys.set = retireKey(activateKey(keys.set, keys.set.keys.at(-1)!.kid!), oldKid);

    advance(61);

    await expect(authenticateBearer(`Bearer ${token}`)).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it("refuses the previous secret's tokens once a rotation's overlap ends, and keeps the new secret's (CONTRACT §17)", async () => {
    const oldHash = credential!.secretHash;
    const newHash = 'scrypt$new';
    const fromOld = await signAccessToken(
      keys,
      config().jwt,
      { ...subject, secretFingerprint: secretFingerprint(oldHash) },
      time.now,
    );
    const legacy = await signAccessToken(keys, config().jwt, subject, time.now);
    await authenticateBearer(`Bearer ${fromOld}`);
    credential = {
      ...credential!,
      secretHash: newHash,
      previousSecretHash: oldHash,
      previousSecretExpiresAt: new Date(time.now.getTime() + 60_000).toISOString(),
      rotatedAt: time.now.toISOString(),
    };
    advance(31); // the cached credential (30 s) gives way to the rotated one
    const fromNew = await signAccessToken(
      keys,
      config().jwt,
      { ...subject, secretFingerprint: secretFingerprint(newHash) },
      time.now,
    );

    await expect(authenticateBearer(`Bearer ${fromOld}`)).resolves.toMatchObject({ clientId: 'cli_1' });
    await expect(authenticateBearer(`Bearer ${legacy}`)).resolves.toMatchObject({ clientId: 'cli_1' });

    advance(30); // the overlap has ended

    await expect(authenticateBearer(`Bearer ${fromOld}`)).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(authenticateBearer(`Bearer ${legacy}`)).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(authenticateBearer(`Bearer ${fromNew}`)).resolves.toMatchObject({ clientId: 'cli_1' });
  });

  it('refuses at once, after a rotation without overlap, a token of the secret it replaced', async () => {
    const fromOld = await signAccessToken(
      keys,
      config().jwt,
      { ...subject, secretFingerprint: secretFingerprint(credential!.secretHash) },
      time.now,
    );
    credential = { ...credential!, secretHash: 'scrypt$new', rotatedAt: time.now.toISOString() };

    await expect(authenticateBearer(`Bearer ${fromOld}`)).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('accepts the bearer scheme name in any letter case (A-11)', async () => {
    const token = await signAccessToken(keys, config().jwt, subject, time.now);

    const principals = await Promise.all(
      ['bearer', 'BEARER', 'bEaReR'].map((scheme) => authenticateBearer(`${scheme} ${token}`)),
    );

    for (const principal of principals) expect(principal).toMatchObject({ clientId: 'cli_1', orgId: ORG });
  });

  it('refuses a missing or non-bearer Authorization header', async () => {
    await expect(authenticateBearer(undefined)).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(authenticateBearer('Basic abc')).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('refuses a token of a suspended organisation with ORG_SUSPENDED at once: the status is never cached', async () => {
    const token = await signAccessToken(keys, config().jwt, subject, time.now);
    await authenticateBearer(`Bearer ${token}`);
    orgStatus = 'suspended';

    await expect(authenticateBearer(`Bearer ${token}`)).rejects.toBeInstanceOf(OrgSuspendedError);
  });

  it("refuses a token with 401 from an erasure's first step, whatever the credential cache holds (CONTRACT §17)", async () => {
    const token = await signAccessToken(keys, config().jwt, subject, time.now);
    await authenticateBearer(`Bearer ${token}`);
    orgStatus = 'deleting';

    const refusal = authenticateBearer(`Bearer ${token}`);

    await expect(refusal).rejects.toBeInstanceOf(OrgGoneError);
    await expect(refusal).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('refuses a token at once once the erasure finished: no status copy and the credential gone, though cached', async () => {
    const token = await signAccessToken(keys, config().jwt, subject, time.now);
    await authenticateBearer(`Bearer ${token}`);
    credential = undefined;
    orgStatus = undefined;

    await expect(authenticateBearer(`Bearer ${token}`)).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('accepts a token of an organisation created before status copies existed (no copy, its credential there)', async () => {
    orgStatus = undefined;
    const token = await signAccessToken(keys, config().jwt, subject, time.now);

    expect(await authenticateBearer(`Bearer ${token}`)).toMatchObject({ orgId: ORG });
  });

  it('refuses a token of a revoked or deleted credential with 401 within the minute', async () => {
    const token = await signAccessToken(keys, config().jwt, subject, time.now);
    await authenticateBearer(`Bearer ${token}`);
    credential = { ...credential!, revokedAt: time.now.toISOString() };
    advance(31);
    const revoked = authenticateBearer(`Bearer ${token}`);
    credential = undefined;
    advance(31);

    await expect(revoked).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(authenticateBearer(`Bearer ${token}`)).rejects.toBeInstanceOf(UnauthorizedError);
  });
});
