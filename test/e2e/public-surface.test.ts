import { describe, expect, it } from 'vitest';

/** HTTP black box against a running deployment: BASE_URL=http://127.0.0.1:3000/api/wp-crm npm run test:e2e */
const baseUrl = process.env.BASE_URL;
if (!baseUrl) throw new Error('BASE_URL is not set (e.g. BASE_URL=http://127.0.0.1:3000/api/wp-crm npm run test:e2e)');

describe(`public surface of ${baseUrl}`, () => {
  it('answers health', async () => {
    const response = await fetch(`${baseUrl}/health`);

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('serves the JWKS without private key material', async () => {
    const { keys } = (await (await fetch(`${baseUrl}/.well-known/jwks.json`)).json()) as {
      keys: Record<string, unknown>[];
    };

    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((key) => key.d === undefined)).toBe(true);
  });

  it('refuses a protected route without a token with a problem document', async () => {
    const response = await fetch(`${baseUrl}/channels/00000000-0000-4000-8000-000000000000`);

    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
  });

  it('answers unknown routes with 404 ROUTE_NOT_FOUND', async () => {
    const response = await fetch(`${baseUrl}/does-not-exist`);

    expect(response.status).toBe(404);
    expect(((await response.json()) as { code: string }).code).toBe('ROUTE_NOT_FOUND');
  });
});
