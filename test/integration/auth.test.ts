import { base64url, decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { deps } from '#shared/config/deps';
import { createCredential, createOrg } from '#shared/domain/orgs/administer';
import { useLocalStack } from '#test/support/local-stack';

describe('POST /token', () => {
  const api = useLocalStack();

  it('issues an ES256 at+jwt bound to the organisation with the client roles (A-2)', async () => {
    const response = await api.call('/token', { method: 'POST', json: api.stack.demo!.credentials.CRM_ADMIN });

    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as {
      accessToken: string;
      tokenType: string;
      expiresIn: number;
      org: string;
      roles: string[];
    };
    expect(body).toMatchObject({ tokenType: 'Bearer', expiresIn: 3600, org: api.orgId, roles: ['CRM_ADMIN'] });
    expect(decodeProtectedHeader(body.accessToken)).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    const claims = decodeJwt(body.accessToken);
    expect(claims.org).toBe(body.org);
    expect(claims.exp! - claims.iat!).toBeLessThanOrEqual(3600);
  });

  it('publishes the verification keys without private material', async () => {
    const response = await api.call('/.well-known/jwks.json');

    const { keys } = (await response.json()) as { keys: Record<string, string>[] };
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
      expect(key.d).toBeUndefined();
    }
  });

  it('answers an unknown client and a wrong secret identically, then 429 after 10 failures (A-1)', async () => {
    const { clientId } = api.stack.demo!.credentials.CRM_BOT;
    const bodies: string[] = [];
    for (let attempt = 0; attempt < 10; attempt++) {
      const response = await api.call('/token', {
        method: 'POST',
        json: { clientId, clientSecret: `wrong-${attempt}` },
      });
      expect(response.status).toBe(401);
      const { instance, ...rest } = (await response.json()) as Record<string, unknown>;
      bodies.push(JSON.stringify(rest));
    }
    const unknown = await api.call('/token', { method: 'POST', json: { clientId: 'cli_nobody', clientSecret: 'x' } });
    const { instance, ...unknownBody } = (await unknown.json()) as Record<string, unknown>;

    const locked = await api.call('/token', { method: 'POST', json: api.stack.demo!.credentials.CRM_BOT });

    expect(new Set(bodies).size).toBe(1);
    expect(JSON.stringify(unknownBody)).toBe(bodies[0]);
    expect(unknown.status).toBe(401);
    expect(JSON.parse(bodies[0]!).code).toBe('INVALID_CLIENT');
    expect(locked.status).toBe(429);
    expect(((await locked.json()) as { code: string }).code).toBe('TOO_MANY_ATTEMPTS');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(800);
  });

  it('refuses unknown properties and malformed bodies before checking credentials', async () => {
    const extra = await api.call('/token', { method: 'POST', json: { clientId: 'a', clientSecret: 'b', org: 'x' } });
    const malformed = await api.call('/token', {
      method: 'POST',
      body: '{',
      headers: { 'content-type': 'application/json' },
    });

    expect(extra.status).toBe(400);
    expect(await extra.json()).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ pointer: '/org' }] });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { code: string }).code).toBe('MALFORMED_JSON');
  });
});

describe('bearer token checks on a protected route', () => {
  const api = useLocalStack();

  it.each([
    ['no header', undefined],
    ['garbage', 'Bearer abc'],
    ['four segments', 'Bearer a.b.c.d'],
    ['bad base64url', 'Bearer !!!.@@@.###'],
    ['null header JSON', `Bearer ${base64url.encode('null')}.${base64url.encode('{}')}.AAAA`],
    ['array header JSON', `Bearer ${base64url.encode('[]')}.${base64url.encode('{}')}.AAAA`],
    ['Basic scheme', 'Basic dXNlcjpwYXNz'],
    ['Bearer alone', 'Bearer '],
    ['two values', 'Bearer a.b.c, Bearer d.e.f'],
    ['8 KB token', `Bearer ${'a'.repeat(8 * 1024)}.b.c`],
  ])('answers 401 UNAUTHORIZED with WWW-Authenticate for %s (A-11)', async (_, authorization) => {
    const response = await api.call(`/channels/${api.orgId}`, { headers: authorization ? { authorization } : {} });

    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(((await response.json()) as { code: string }).code).toBe('UNAUTHORIZED');
  });

  it('never answers 2xx or 5xx for an oversized Authorization header (A-11)', async () => {
    const response = await api.call(`/channels/${api.orgId}`, {
      headers: { authorization: `Bearer ${'a'.repeat(1024 * 1024)}` },
    });

    expect([401, 413, 431]).toContain(response.status);
  });

  it('refuses an alg:none token and a token with a tampered organisation (A-3, A-5)', async () => {
    const token = await api.token('CRM_ADMIN');
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(new TextDecoder().decode(base64url.decode(payload)));
    const none = `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'at+jwt' }))}.${payload}.`;
    const forged = `${header}.${base64url.encode(JSON.stringify({ ...claims, roles: ['ACCOUNT_OWNER'] }))}.${signature}`;

    for (const bad of [none, forged]) {
      const response = await api.call(`/channels/${api.orgId}`, { token: bad });
      expect(response.status).toBe(401);
    }
  });

  it.each([
    ['another organisation', '0b7f3a52-6d1e-4c8f-9a2b-3c4d5e6f7a8b'],
    ['the same id in upper case', 'UPPER'],
    ['an encoded path trick', 'ORG%2F..%2Fother'],
    ['a non-UUID id', 'not-a-uuid'],
    ['a trailing space', 'ORG%20'],
  ])('answers 401 ORG_MISMATCH for %s in the path (B-1)', async (_, pathOrg) => {
    const token = await api.token('ACCOUNT_OWNER');
    const path = pathOrg === 'UPPER' ? api.orgId.toUpperCase() : pathOrg.replace('ORG', api.orgId);

    const response = await api.call(`/channels/${path}`, { token });

    expect(response.status).toBe(401);
    expect(((await response.json()) as { code: string }).code).toBe('ORG_MISMATCH');
  });

  it('answers 403 FORBIDDEN to a token without any role (B-3)', async () => {
    const { clientId, clientSecret } = await createCredential(deps(), { orgId: api.orgId, roles: [] });
    const tokenResponse = await api.call('/token', { method: 'POST', json: { clientId, clientSecret } });
    const { accessToken } = (await tokenResponse.json()) as { accessToken: string };

    const response = await api.call(`/channels/${api.orgId}`, { token: accessToken });

    expect(response.status).toBe(403);
  });

  it("never shows one organisation another's channels", async () => {
    const { orgId: otherOrg } = await createOrg(deps(), { name: 'Other' });
    const { clientId, clientSecret } = await createCredential(deps(), { orgId: otherOrg, roles: ['CRM_AGENT'] });
    const { accessToken } = (await (
      await api.call('/token', { method: 'POST', json: { clientId, clientSecret } })
    ).json()) as {
      accessToken: string;
    };

    const own = await api.call(`/channels/${otherOrg}`, { token: accessToken });

    expect(((await own.json()) as { channels: unknown[] }).channels).toEqual([]);
  });
});
