import { describe, expect, it } from 'vitest';
import { baseUrl, call } from './target.ts';

describe(`public surface of ${baseUrl}`, () => {
  it('answers health', async () => {
    const response = await call('/health');

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('serves the JWKS without private key material', async () => {
    const { keys } = (await (await call('/.well-known/jwks.json')).json()) as { keys: Record<string, unknown>[] };

    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((key) => key.d === undefined)).toBe(true);
  });

  it('serves the OpenAPI document', async () => {
    const response = await call('/openapi.json');

    expect(response.status).toBe(200);
    expect(((await response.json()) as { openapi: string }).openapi).toMatch(/^3\.1\./);
  });

  it('refuses a protected route without a token with a problem document', async () => {
    const response = await call('/channels/00000000-0000-4000-8000-000000000000');

    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
  });

  it('answers unknown routes with 404 ROUTE_NOT_FOUND', async () => {
    const response = await call('/does-not-exist');

    expect(response.status).toBe(404);
    expect(((await response.json()) as { code: string }).code).toBe('ROUTE_NOT_FOUND');
  });

  it('serves the API reference page and its script from the deployment itself', async () => {
    const page = await call('/docs');
    const html = await page.text();
    const script = /src="([^"]+\.js)"/.exec(html)?.[1];
    const asset = await fetch(new URL(script!, `${baseUrl}/docs`));

    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(asset.status).toBe(200);
    expect((await asset.text()).length).toBeGreaterThan(100_000);
  });
});
