import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseUrl, call, client, dataDir, localDeployment } from './target.ts';

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

  it('keeps POST /token and the network webhook answering while one address sends junk at 300 requests/s (CONTRACT §21)', async () => {
    const { demo } = localDeployment();
    const appSecret = readFileSync(join(dataDir, 'whatsapp-app-secret'), 'utf8').trim();
    const notification = JSON.stringify({ object: 'whatsapp_business_account', entry: [] });
    const signature = `sha256=${createHmac('sha256', appSecret).update(notification).digest('hex')}`;
    // 600 requests to an unknown path over 2 s: the $default route's own bucket (20/s, burst 40) runs dry. Sent
    // with node:http, past the openapi.json recorder: API Gateway's own 429 `{"message"}` is the gateway's, not the
    // service's (docs/deployment.md: errors produced by API Gateway itself).
    const junkUrl = new URL(`${baseUrl}/junk`);
    const junkStatus = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const request = httpRequest({ host: junkUrl.hostname, port: junkUrl.port, path, method: 'GET' }, (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        });
        request.on('error', reject);
        request.end();
      });
    let junkStatuses: number[] = [];
    const junk = (async () => {
      const sent: Promise<number>[] = [];
      for (let tick = 0; tick < 20; tick += 1) {
        for (let request = 0; request < 30; request += 1) {
          sent.push(junkStatus(`${junkUrl.pathname}-${tick}-${request}`));
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      junkStatuses = await Promise.all(sent);
    })();
    await new Promise((resolve) => setTimeout(resolve, 500));

    const token = await client().POST('/api/wp-crm/token', { body: demo.credentials.ACCOUNT_OWNER });
    const webhook = await fetch(`${baseUrl}/network/whatsapp/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
      body: notification,
    });
    await junk;

    expect(junkStatuses.filter((status) => status === 429).length).toBeGreaterThan(0);
    expect(token.response.status).toBe(200);
    expect(webhook.status).toBe(200);
  });
});
