import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { base64url, exportJWK, exportSPKI, generateKeyPair, importJWK, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { signAccessToken, verifyAccessToken } from '#shared/auth/access-token';
import { activateKey, addKey, retireKey } from '#shared/auth/key-set';
import { UnauthorizedError } from '#shared/errors';
import { MemoryKeyStore } from '#test/support/memory-key-store';

const settings = { issuer: 'https://issuer.test', audience: 'wp-crm-api', ttlSeconds: 3600 };
const ORG = '3f1c2a4e-8b7d-4c1a-9e2f-0a1b2c3d4e5f';
const subject = { clientId: 'cli_1', orgId: ORG, roles: ['CRM_ADMIN' as const] };
const NOW = new Date('2026-11-22T10:00:00Z');
const nowSeconds = NOW.getTime() / 1000;

let keys: MemoryKeyStore;

async function signWith(claims: Record<string, unknown>, header: Record<string, unknown> = {}, store = keys) {
  const { kid, privateJwk } = await store.signingKey();
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid, ...header });
  return jwt.sign(await importJWK(privateJwk, 'ES256'));
}

const validClaims = () => ({
  iss: settings.issuer,
  aud: settings.audience,
  sub: 'cli_1',
  org: ORG,
  roles: ['CRM_ADMIN'],
  iat: nowSeconds,
  exp: nowSeconds + 3600,
  jti: 'j1',
});

const rejects = (token: string, at = NOW, store = keys) =>
  expect(verifyAccessToken(store, settings, token, at)).rejects.toBeInstanceOf(UnauthorizedError);

beforeAll(async () => {
  keys = await MemoryKeyStore.create();
});

describe('signAccessToken', () => {
  it('issues an ES256 at+jwt with kid and every required claim (A-2)', async () => {
    const token = await signAccessToken(keys, settings, subject, NOW);

    const [header, payload] = token
      .split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(new TextDecoder().decode(base64url.decode(part))));
    expect(header).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: keys.set.activeKid });
    expect(Object.keys(payload).sort()).toEqual(['aud', 'exp', 'iat', 'iss', 'jti', 'org', 'roles', 'sub']);
    expect(payload.exp - payload.iat).toBe(3600);
    expect(payload.org).toBe(ORG);
  });
});

describe('verifyAccessToken', () => {
  it('returns the principal of a valid token', async () => {
    const token = await signAccessToken(keys, settings, subject, NOW);

    const principal = await verifyAccessToken(keys, settings, token, NOW);

    expect(principal).toMatchObject({ clientId: 'cli_1', orgId: ORG, roles: ['CRM_ADMIN'] });
  });

  it.each(['none', 'None', 'NONE', 'nOnE', 'none '])('refuses alg %j (A-3)', async (alg) => {
    const header = base64url.encode(JSON.stringify({ alg, typ: 'at+jwt', kid: keys.set.activeKid }));
    const payload = base64url.encode(JSON.stringify(validClaims()));

    await rejects(`${header}.${payload}.`);
    await rejects(`${header}.${payload}.AAAA`);
  });

  it('refuses HS256 tokens keyed with our public key material (A-4)', async () => {
    const [publicJwk] = await keys.verificationKeys();
    const publicKey = await importJWK(publicJwk!, 'ES256');
    const pem = await exportSPKI(publicKey as Parameters<typeof exportSPKI>[0]);
    for (const secret of [new TextEncoder().encode(pem), new TextEncoder().encode(publicJwk!.x!)]) {
      const token = await new SignJWT(validClaims())
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: keys.set.activeKid })
        .sign(secret);
      await rejects(token);
    }
  });

  it('refuses a tampered payload and truncated tokens (A-5)', async () => {
    const token = await signAccessToken(keys, settings, subject, NOW);
    const [header, , signature] = token.split('.');
    const forged = base64url.encode(
      JSON.stringify({ ...validClaims(), org: '00000000-0000-4000-8000-000000000000', roles: ['ACCOUNT_OWNER'] }),
    );

    await rejects(`${header}.${forged}.${signature}`);
    await rejects(`${header}.${forged}.`);
    await rejects(`${header}.${forged}.AAAA`);
  });

  it('refuses a token signed by an attacker key under our kid, without fetching jku/x5u (A-6)', async () => {
    let fetched = 0;
    const fake = createServer((_, response) => {
      fetched += 1;
      response.end('{}');
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}/jwks.json`;
    const attacker = await generateKeyPair('ES256', { extractable: true });
    const jwk = await exportJWK(attacker.publicKey);
    try {
      for (const extra of [{}, { jku: url }, { x5u: url }, { jwk }]) {
        const token = await new SignJWT(validClaims())
          .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: keys.set.activeKid, ...extra })
          .sign(attacker.privateKey);
        await rejects(token);
      }
      expect(fetched).toBe(0);
    } finally {
      fake.close();
    }
  });

  it('applies the 30 s leeway at the exp, nbf and iat boundaries (A-7)', async () => {
    const exp = nowSeconds + 100;
    const token = await signWith({ ...validClaims(), exp });

    await expect(verifyAccessToken(keys, settings, token, new Date((exp + 29) * 1000))).resolves.toBeDefined();
    await rejects(token, new Date((exp + 30) * 1000));

    const nbfOk = await signWith({ ...validClaims(), nbf: nowSeconds + 30 });
    const nbfLate = await signWith({ ...validClaims(), nbf: nowSeconds + 31 });
    await expect(verifyAccessToken(keys, settings, nbfOk, NOW)).resolves.toBeDefined();
    await rejects(nbfLate);

    await rejects(await signWith({ ...validClaims(), iat: nowSeconds - 3600 - 31, exp: nowSeconds + 100 }));
    await rejects(await signWith({ ...validClaims(), iat: nowSeconds + 31 }));
  });

  it.each(['exp', 'org', 'sub', 'aud', 'iss', 'iat', 'jti', 'roles'])(
    'refuses a token without %s (A-8)',
    async (claim) => {
      const claims: Record<string, unknown> = validClaims();
      delete claims[claim];

      await rejects(await signWith(claims));
    },
  );

  it.each([
    ['org', ['a', 'b']],
    ['org', {}],
    ['org', 123],
    ['org', ''],
    ['org', ORG.toUpperCase()],
    ['roles', 'admin'],
  ])('refuses %s = %j (A-8)', async (claim, value) => {
    await rejects(await signWith({ ...validClaims(), [claim]: value }));
  });

  it('refuses a foreign issuer, audience or typ, and accepts an audience array holding ours (A-9)', async () => {
    await rejects(await signWith({ ...validClaims(), iss: 'https://evil.test' }));
    await rejects(await signWith({ ...validClaims(), aud: 'other-api' }));
    await rejects(await signWith(validClaims(), { typ: 'JWT' }));
    await rejects(await signWith(validClaims(), { typ: 'rt+jwt' }));

    const multi = await signWith({ ...validClaims(), aud: ['other-api', settings.audience] });
    await expect(verifyAccessToken(keys, settings, multi, NOW)).resolves.toBeDefined();
  });

  it.each(['../../dev/null', "' OR '1'='1", 'x'.repeat(10_000), 'unknown-kid'])(
    'refuses hostile kid %# without reading anything keyed on it (A-10)',
    async (kid) => {
      const store = await MemoryKeyStore.create();
      const token = await signWith(validClaims(), { kid }, store);

      await rejects(token, NOW, store);
      expect(store.refreshes).toBeLessThanOrEqual(1);
    },
  );

  it.each(['abc', 'a.b.c.d', 'a.b', '!!!.@@@.###', 'e30.e30.', `${'a'.repeat(5000)}.b.c`])(
    'refuses malformed token %# (A-11)',
    async (token) => {
      await rejects(token);
    },
  );

  it('accepts tokens of every published key during a rotation and none of a retired one (A-12)', async () => {
    const store = await MemoryKeyStore.create();
    const oldKid = store.set.activeKid;
    const oldToken = await signAccessToken(store, settings, subject, NOW);
    store.set = await addKey(store.set);
    const newKid = store.set.keys.at(-1)!.kid!;
    store.set = activateKey(store.set, newKid);
    const newToken = await signAccessToken(store, settings, subject, NOW);

    await expect(verifyAccessToken(store, settings, oldToken, NOW)).resolves.toBeDefined();
    await expect(verifyAccessToken(store, settings, newToken, NOW)).resolves.toBeDefined();

    store.set = retireKey(store.set, oldKid);
    await rejects(oldToken, NOW, store);
    await expect(verifyAccessToken(store, settings, newToken, NOW)).resolves.toBeDefined();
  });

  it('refuses a token whose kid two published keys share (A-12)', async () => {
    const store = await MemoryKeyStore.create();
    const token = await signAccessToken(store, settings, subject, NOW);
    const twin = await addKey(store.set);
    store.set = { ...twin, keys: twin.keys.map((key) => ({ ...key, kid: store.set.activeKid })) };

    await rejects(token, NOW, store);
  });
});

describe('key set rotation steps', () => {
  it('refuses to retire the signing key', async () => {
    const store = await MemoryKeyStore.create();

    expect(() => retireKey(store.set, store.set.activeKid)).toThrow();
  });
});
