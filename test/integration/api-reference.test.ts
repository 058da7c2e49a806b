import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useLocalStack } from '#test/support/local-stack';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const scriptPath = (html: string) => /<script src="(docs\/redoc\.[0-9a-f]{16}\.js)"><\/script>/.exec(html)?.[1];

describe('API reference', () => {
  const api = useLocalStack();

  it('serves the page without a token, scripts and styles restricted to the service itself', async () => {
    const response = await api.call('/docs');

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('x-request-id')).toBeTruthy();
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("connect-src 'self'");
    const html = await response.text();
    expect(html).toContain('<redoc spec-url="openapi.json"');
    expect(scriptPath(html)).toBeDefined();
  });

  it('serves the renderer gzip-encoded and cacheable for good, with no CDN address left in it', async () => {
    const page = await (await api.call('/docs')).text();

    const response = await api.call(`/${scriptPath(page)}`, { headers: { 'accept-encoding': 'gzip' } });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('vary')).toBe('accept-encoding');
    const script = await response.text();
    expect(script.includes('exports.Redoc=')).toBe(true);
    expect(script.includes('cdn.redoc.ly')).toBe(false);
  });

  it('serves the same script unencoded to a client that refuses gzip', async () => {
    const path = `/${scriptPath(await (await api.call('/docs')).text())}`;
    const gzipped = await (await api.call(path, { headers: { 'accept-encoding': 'gzip' } })).text();

    const response = await api.call(path, { headers: { 'accept-encoding': 'gzip;q=0, identity' } });

    expect(response.headers.get('content-encoding')).toBeNull();
    expect(sha256(await response.text())).toBe(sha256(gzipped));
  });

  it('answers 404 ROUTE_NOT_FOUND for any other asset name', async () => {
    const response = await api.call('/docs/redoc.0000000000000000.js');

    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(((await response.json()) as { code: string }).code).toBe('ROUTE_NOT_FOUND');
  });

  it('declares the origin the document was fetched from as its server', async () => {
    const document = (await (await api.call('/openapi.json')).json()) as { servers: { url: string }[] };

    expect(document.servers.map((server) => server.url)).toEqual([new URL(api.stack.apiUrl).origin]);
  });
});
