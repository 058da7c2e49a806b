import { describe, expect, it } from 'vitest';
import { baseUrl, call, client } from './target.ts';

describe(`public surface of ${baseUrl}`, () => {
  it('answers health', async () => {
    const { data, response } = await client().GET('/api/wp-crm/health');

    expect(response.status).toBe(200);
    expect(data).toEqual({ status: 'ok' });
  });

  it('serves the JWKS without private key material', async () => {
    const { data } = await client().GET('/api/wp-crm/.well-known/jwks.json');
    const keys = data!.keys as Record<string, unknown>[];

    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((key) => key.d === undefined && key.use === 'sig')).toBe(true);
  });

  it('serves the OpenAPI document', async () => {
    const { data, response } = await client().GET('/api/wp-crm/openapi.json');

    expect(response.status).toBe(200);
    expect(data?.openapi).toMatch(/^3\.1\./);
  });

  it('refuses a protected route without a token with a problem document', async () => {
    const { error, response } = await client().GET('/api/wp-crm/channels/{orgId}', {
      params: { path: { orgId: '00000000-0000-4000-8000-000000000000' } },
    });

    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(error).toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('answers unknown routes with 404 ROUTE_NOT_FOUND', async () => {
    const response = await call('/does-not-exist');

    expect(response.status).toBe(404);
    expect(((await response.json()) as { code: string }).code).toBe('ROUTE_NOT_FOUND');
  });

  it('serves the API reference page and its script from the deployment itself', async () => {
    const { data: html, response: page } = await client().GET('/api/wp-crm/docs', { parseAs: 'text' });
    const script = /src="([^"]+\.js)"/.exec(html ?? '')?.[1];
    const assetUrl = new URL(script!, `${baseUrl}/docs`);
    const asset = await client().GET('/api/wp-crm/docs/{asset}', {
      params: { path: { asset: assetUrl.pathname.split('/').pop()! } },
      parseAs: 'text',
    });

    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(assetUrl.pathname).toMatch(/\/api\/wp-crm\/docs\/[^/]+$/);
    expect(asset.response.status).toBe(200);
    expect(asset.data!.length).toBeGreaterThan(100_000);
  });
});
