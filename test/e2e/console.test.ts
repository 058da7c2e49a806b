import { describe, expect, it } from 'vitest';
import { wpcrm } from '#test/support/cli';
import { baseUrl, call, dataDir, localDeployment } from './target.ts';

// CONTRACT §24 through the deployment: the console's page and assets from the stack's own function, a link from
// the CLI and one from the API, a session opened, refreshed and ended, a read session refused a change, and the
// Overview's aggregate read (with IAM enforced under start:cdk, every call of these functions is checked).
describe('the console, served by the deployment', () => {
  const deployment = localDeployment();
  const { orgId } = deployment;
  const codeOf = (url: string) => new URL(url).hash.replace('#code=', '');

  it('serves its page and its assets from the stack, with a strict policy', async () => {
    const page = await call('/console/webhooks');
    const html = await page.text();
    const script = /src="\/api\/wp-crm(\/console\/scripts\/[^"]+)"/.exec(html)?.[1];
    const styles = /href="\/api\/wp-crm(\/console\/styles\/[^"]+)"/.exec(html)?.[1];

    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect((await call(script!)).status).toBe(200);
    expect((await call(styles!)).headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it("answers the link's address, /console/, with the page's own: no route of the HTTP API ends with a slash", async () => {
    const moved = await call('/console/', { redirect: 'manual' });
    const page = await call('/console/');

    expect(moved.status).toBe(302);
    expect(moved.headers.get('location')).toBe(`${new URL(baseUrl).pathname}/console`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  it('signs in with an operator link once, refreshes, reads the Overview, and signs out', async () => {
    const printed = JSON.parse((await wpcrm(['console-link', '--org', orgId], dataDir, 120_000)).stdout) as {
      url: string;
    };
    const code = codeOf(printed.url);

    const opened = await call('/console-sessions', { method: 'POST', json: { code } });
    const again = await call('/console-sessions', { method: 'POST', json: { code } });

    expect(opened.status).toBe(201);
    expect(again.status).toBe(401);
    expect(((await again.json()) as { reason: string }).reason).toBe('used');
    const cookie = opened.headers.get('set-cookie')!.split(';')[0]!;
    const refreshed = await call('/console-sessions/refresh', { method: 'POST', json: {}, headers: { cookie } });
    expect(refreshed.status).toBe(200);
    const { accessToken } = (await refreshed.json()) as { accessToken: string };
    const overview = await call(`/console-overview/${orgId}`, { token: accessToken });
    expect(overview.status).toBe(200);
    expect(((await overview.json()) as { hours: unknown[] }).hours).toHaveLength(24);
    const out = await call('/console-sessions/sign-out', { method: 'POST', json: {}, headers: { cookie } });
    expect(out.status).toBe(200);
    expect((await call('/console-sessions/refresh', { method: 'POST', json: {}, headers: { cookie } })).status).toBe(
      401,
    );
  });

  it('lets a read session read and refuses it a change (403 FORBIDDEN)', async () => {
    const owner = await deployment.token('ACCOUNT_OWNER');
    const created = await call(`/console-links/${orgId}`, { method: 'POST', token: owner, json: { access: 'read' } });
    const { url } = (await created.json()) as { url: string };
    const opened = await call('/console-sessions', { method: 'POST', json: { code: codeOf(url) } });
    const { accessToken } = (await opened.json()) as { accessToken: string };

    const read = await call(`/webhooks/${orgId}`, { token: accessToken });
    const change = await call(`/webhooks/${orgId}`, {
      method: 'POST',
      token: accessToken,
      json: { url: 'http://127.0.0.1:9/read-only' },
    });

    expect(created.status).toBe(201);
    expect(read.status).toBe(200);
    expect(change.status).toBe(403);
  });
});
