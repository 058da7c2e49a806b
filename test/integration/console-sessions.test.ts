import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { main } from '#bin/cli/main';
import { consoleStore } from '#shared/config/console';
import { eventually, useLocalStack } from '#test/support/local-stack';

type Json = Record<string, unknown>;

describe('console links and sessions (CONTRACT §24)', () => {
  const api = useLocalStack({ ACCESS_STATUS_CACHE_SECONDS: '0' });

  const cli = async (...args: string[]) => {
    let stdout = '';
    let stderr = '';
    const io = { out: (line: string) => (stdout += `${line}\n`), err: (line: string) => (stderr += `${line}\n`) };
    const status = await main(args, io, { WPCRM_DATA_DIR: api.stack.dataDir });
    if (status !== 0) throw new Error(`wpcrm ${args.join(' ')}: ${status} ${stderr}`);
    return JSON.parse(stdout) as Json;
  };

  async function link(token: string, body: Json = {}) {
    const response = await api.call(`/console-links/${api.orgId}`, { method: 'POST', token, json: body });
    expect(response.status).toBe(201);
    return { response, body: (await response.json()) as { url: string; expiresAt: string } };
  }

  const codeOf = (url: string) => new URL(url).hash.replace('#code=', '');
  const exchange = (code: string) => api.call('/console-sessions', { method: 'POST', json: { code } });
  const cookieOf = (response: Response) => response.headers.get('set-cookie')!.split(';')[0]!;

  async function session(token: string, body: Json = {}) {
    const response = await exchange(codeOf((await link(token, body)).body.url));
    expect(response.status).toBe(201);
    return { cookie: cookieOf(response), token: ((await response.json()) as { accessToken: string }).accessToken };
  }

  const refresh = (cookie?: string) =>
    api.call('/console-sessions/refresh', { method: 'POST', json: {}, headers: cookie ? { cookie } : {} });

  it('gives an ACCOUNT_OWNER or CRM_ADMIN a one-time link into the console, never cached', async () => {
    const { response, body } = await link(await api.token('CRM_ADMIN'));

    expect(response.headers.get('cache-control')).toBe('no-store');
    // The organisation's id names where the link is kept (its erasure finds it); the secret is 256 random bits.
    expect(body.url).toMatch(new RegExp(`^${api.stack.apiUrl}/console/#code=${api.orgId}\\.[A-Za-z0-9_-]{43}$`));
    const minutes = (Date.parse(body.expiresAt) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(9);
    expect(minutes).toBeLessThanOrEqual(10);
  });

  it('refuses a link to CRM_BOT and CRM_AGENT (403 FORBIDDEN)', async () => {
    for (const role of ['CRM_BOT', 'CRM_AGENT'] as const) {
      const response = await api.call(`/console-links/${api.orgId}`, {
        method: 'POST',
        token: await api.token(role),
        json: {},
      });

      expect(response.status).toBe(403);
      expect(((await response.json()) as Json).code).toBe('FORBIDDEN');
    }
  });

  it('signs in once with a code: an HttpOnly, SameSite=Strict cookie for the session routes, and a token', async () => {
    const { body } = await link(await api.token('ACCOUNT_OWNER'), { sessionSeconds: 3600 });

    const response = await exchange(codeOf(body.url));

    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const cookie = response.headers.get('set-cookie')!;
    expect(cookie).toMatch(new RegExp(`^wpcrm_console=${api.orgId}\\.cs_[0-9A-Z]{26}\\.[A-Za-z0-9_-]{43}; `));
    expect(cookie).toContain('Path=/api/wp-crm/console-sessions');
    expect(cookie).toContain('Max-Age=3600');
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    // Loopback over plain HTTP: a Secure cookie would be dropped by the browser.
    expect(cookie).not.toContain('Secure');
    const token = (await response.json()) as Json;
    expect(token).toMatchObject({ tokenType: 'Bearer', org: api.orgId, roles: ['ACCOUNT_OWNER'], access: 'manage' });
    expect(token.expiresIn).toBeLessThanOrEqual(600);
    const channels = await api.call(`/channels/${api.orgId}`, { token: String(token.accessToken) });
    expect(channels.status).toBe(200);
  });

  it('refuses a second use of a code as "used", and a made-up one as "unknown"', async () => {
    const code = codeOf((await link(await api.token('CRM_ADMIN'))).body.url);
    expect((await exchange(code)).status).toBe(201);

    const again = await exchange(code);
    const madeUp = await exchange(`${api.orgId}.${'A'.repeat(43)}`);
    const withoutOrg = await exchange(code.slice(code.indexOf('.') + 1));

    expect(again.status).toBe(401);
    expect(again.headers.get('www-authenticate')).toContain('Bearer');
    expect(await again.json()).toMatchObject({ code: 'UNAUTHORIZED', reason: 'used' });
    for (const refused of [madeUp, withoutOrg]) {
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ code: 'UNAUTHORIZED', reason: 'unknown' });
    }
  });

  it("finds a code only under its own organisation: another organisation's id in front of it is unknown", async () => {
    const { orgId: otherOrg } = await api.newOrg('Other console', ['ACCOUNT_OWNER']);
    const code = codeOf((await link(await api.token('CRM_ADMIN'))).body.url);

    const moved = await exchange(`${otherOrg}${code.slice(code.indexOf('.'))}`);

    expect(moved.status).toBe(401);
    expect(await moved.json()).toMatchObject({ code: 'UNAUTHORIZED', reason: 'unknown' });
    expect((await exchange(code)).status).toBe(201);
  });

  it('lets exactly one of two simultaneous uses of a code win', async () => {
    const code = codeOf((await link(await api.token('CRM_ADMIN'))).body.url);

    const answers = await Promise.all([exchange(code), exchange(code), exchange(code)]);

    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 401, 401]);
  });

  it('refuses a code older than 10 minutes as "expired"', async () => {
    const past = new Date(Date.now() - 11 * 60_000);
    const code = `${api.orgId}.${'B'.repeat(43)}`;
    await consoleStore().putLink({
      codeHash: createHash('sha256').update(code).digest('hex'),
      orgId: api.orgId,
      clientId: 'cli_x',
      credentialId: 'crd_x',
      roles: ['CRM_ADMIN'],
      access: 'manage',
      sessionSeconds: 3600,
      createdAt: past.toISOString(),
      expiresAt: new Date(past.getTime() + 600_000).toISOString(),
    });

    const response = await exchange(code);

    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: 'UNAUTHORIZED', reason: 'expired' });
  });

  it('gives a manage session only the ACCOUNT_OWNER / CRM_ADMIN roles of the credential that asked', async () => {
    const { orgId, token } = await api.newOrg('Mixed roles', ['CRM_ADMIN', 'CRM_BOT']);
    const created = await api.call(`/console-links/${orgId}`, { method: 'POST', token, json: {} });
    const { url } = (await created.json()) as { url: string };

    const response = await exchange(codeOf(url));

    expect(await response.json()).toMatchObject({ org: orgId, roles: ['CRM_ADMIN'], access: 'manage' });
  });

  it('lets a read session read everything and change nothing (403 FORBIDDEN), whatever its roles', async () => {
    const read = await session(await api.token('ACCOUNT_OWNER'), { access: 'read' });
    const manage = await session(await api.token('ACCOUNT_OWNER'));
    const webhook = { url: 'http://127.0.0.1:9/console' };

    const listed = await api.call(`/webhooks/${api.orgId}`, { token: read.token });
    const refused = await api.call(`/webhooks/${api.orgId}`, { method: 'POST', token: read.token, json: webhook });
    const linkRefused = await api.call(`/console-links/${api.orgId}`, { method: 'POST', token: read.token, json: {} });
    const allowed = await api.call(`/webhooks/${api.orgId}`, { method: 'POST', token: manage.token, json: webhook });

    expect(listed.status).toBe(200);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as Json).code).toBe('FORBIDDEN');
    expect(linkRefused.status).toBe(403);
    expect(allowed.status).toBe(201);
  });

  it('refreshes the token with the cookie alone, and refuses without one as "signed-out"', async () => {
    const { cookie } = await session(await api.token('CRM_ADMIN'));

    const refreshed = await refresh(cookie);
    const without = await refresh();
    const forged = await refresh(`${cookie.slice(0, -4)}AAAA`);
    const [, sessionId, secret] = cookie.slice('wpcrm_console='.length).split('.');
    const { orgId: otherOrg } = await api.newOrg('Cookie mover', ['ACCOUNT_OWNER']);
    const moved = await refresh(`wpcrm_console=${otherOrg}.${sessionId}.${secret}`);

    expect(refreshed.status).toBe(200);
    expect(refreshed.headers.get('cache-control')).toBe('no-store');
    const token = (await refreshed.json()) as { accessToken: string; access: string };
    expect(token.access).toBe('manage');
    expect((await api.call(`/channels/${api.orgId}`, { token: token.accessToken })).status).toBe(200);
    expect(without.status).toBe(401);
    expect(await without.json()).toMatchObject({ code: 'UNAUTHORIZED', reason: 'signed-out' });
    expect(forged.status).toBe(401);
    expect(moved.status).toBe(401);
  });

  it('takes only a JSON body on the session routes (no form post of another site fits)', async () => {
    const { cookie } = await session(await api.token('CRM_ADMIN'));

    const form = await api.call('/console-sessions/refresh', {
      method: 'POST',
      body: 'a=b',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    });

    expect(form.status).toBe(415);
  });

  it('ends the session on sign-out: the cookie is cleared, refresh and the old token are refused', async () => {
    const { cookie, token } = await session(await api.token('CRM_ADMIN'));

    const out = await api.call('/console-sessions/sign-out', { method: 'POST', json: {}, headers: { cookie } });

    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^wpcrm_console=; Path=\/api\/wp-crm\/console-sessions; Max-Age=0;/);
    expect((await refresh(cookie)).status).toBe(401);
    const call = await api.call(`/channels/${api.orgId}`, { token });
    expect(call.status).toBe(401);
  });

  it('ends the session when the credential that asked for the link is revoked', async () => {
    const { clientId, clientSecret } = await cli('credential', 'create', '--org', api.orgId, '--roles', 'CRM_ADMIN');
    const issued = await api.call('/token', { method: 'POST', json: { clientId, clientSecret } });
    const { accessToken } = (await issued.json()) as { accessToken: string };
    const { cookie, token } = await session(accessToken);

    await cli('credential', 'revoke', '--client-id', String(clientId));

    expect((await api.call(`/channels/${api.orgId}`, { token })).status).toBe(401);
    expect((await refresh(cookie)).status).toBe(401);
  });

  it('ends the session while the organisation is suspended (403 ORG_SUSPENDED)', async () => {
    const { orgId, token: owner } = await api.newOrg('Suspended console', ['ACCOUNT_OWNER']);
    const created = await api.call(`/console-links/${orgId}`, { method: 'POST', token: owner, json: {} });
    const signedIn = await exchange(codeOf(((await created.json()) as { url: string }).url));
    const cookie = cookieOf(signedIn);
    const { accessToken } = (await signedIn.json()) as { accessToken: string };

    await cli('org', 'suspend', '--org', orgId);

    const call = await api.call(`/channels/${orgId}`, { token: accessToken });
    expect(call.status).toBe(403);
    expect(((await call.json()) as Json).code).toBe('ORG_SUSPENDED');
    expect((await refresh(cookie)).status).toBe(403);
  });

  it('prints an operator link with wpcrm console-link, read-only with --read-only', async () => {
    const printed = (await cli('console-link', '--org', api.orgId, '--read-only')) as { url: string };

    const response = await exchange(codeOf(printed.url));

    expect(printed.url.startsWith(`${api.stack.apiUrl}/console/#code=${api.orgId}.`)).toBe(true);
    expect(await response.json()).toMatchObject({ org: api.orgId, access: 'read', roles: ['ACCOUNT_OWNER'] });
  });
});

describe('the console page (CONTRACT §24)', () => {
  const api = useLocalStack({ CONSOLE_FRAME_ANCESTORS: 'https://intranet.example.com' });

  it('serves the page on every page URL with a strict Content-Security-Policy', async () => {
    for (const path of ['/console', '/console/groups', '/console/webhooks/whk_1', '/console/events']) {
      const response = await api.call(path);

      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const policy = response.headers.get('content-security-policy')!;
      expect(policy).toContain("default-src 'self'");
      expect(policy).toContain("script-src 'self'");
      expect(policy).not.toContain('unsafe-inline');
      expect(policy).toContain('frame-ancestors https://intranet.example.com');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });

  it('serves its script and style sheet, named by content, immutable and gzip-encoded', async () => {
    const html = await (await api.call('/console')).text();
    const script = /src="\/api\/wp-crm(\/console\/scripts\/app\.[0-9a-f]{12}\.js)"/.exec(html)![1]!;
    const styles = /href="\/api\/wp-crm(\/console\/styles\/app\.[0-9a-f]{12}\.css)"/.exec(html)![1]!;

    const js = await api.call(script, { headers: { 'accept-encoding': 'gzip' } });
    const css = await api.call(styles);

    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.headers.get('content-encoding')).toBe('gzip');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect((await css.text()).length).toBeGreaterThan(100);
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<]+<\/script>/);
  });

  it("sends the link's address, /console/, and a page's written with a trailing slash, to the page's own", async () => {
    for (const [path, to] of [
      ['/console/', '/console'],
      ['/console/groups/', '/console/groups'],
      ['/console/webhooks/whk_1/?status=failed', '/console/webhooks/whk_1?status=failed'],
    ] as const) {
      const response = await api.call(path, { redirect: 'manual' });

      expect(response.status, path).toBe(302);
      expect(response.headers.get('location'), path).toBe(`/api/wp-crm${to}`);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('x-request-id')).toBeTruthy();
    }
    // Followed as a browser follows it: the page.
    const followed = await api.call('/console/');
    expect(followed.status).toBe(200);
    expect(followed.headers.get('content-type')).toBe('text/html; charset=utf-8');
    // Nothing else moves: an unknown page, an asset, an API route with a trailing slash stay 404.
    for (const path of ['/console/nothing/', '/console/scripts/app.0.js/', `/channels/${api.orgId}/`]) {
      const response = await api.call(path, { redirect: 'manual' });
      expect(response.status, path).toBe(404);
    }
  });

  it('answers 404 ROUTE_NOT_FOUND for a page or an asset it does not have', async () => {
    for (const path of [
      '/console/nothing',
      '/console/reports/rpt_1',
      '/console/scripts/app.0.js',
      '/console/styles/x.js',
    ]) {
      const response = await api.call(path);

      expect(response.status, path).toBe(404);
      expect(((await response.json()) as Json).code).toBe('ROUTE_NOT_FOUND');
    }
  });

  it('draws the Overview chart from the delivery records and the events feed', async () => {
    const token = await api.token('CRM_ADMIN');
    const created = await api.call(`/webhooks/${api.orgId}`, {
      method: 'POST',
      token,
      json: { url: 'http://127.0.0.1:9/unreachable' },
    });
    const { webhookId } = (await created.json()) as { webhookId: string };
    await api.call(`/webhooks/${api.orgId}/${webhookId}/test`, { method: 'POST', token, json: {} });
    await api.call(`/reports/${api.orgId}`, { method: 'POST', token, json: { reportType: 'GOAL' } });

    const overview = await eventually(
      async () => {
        const response = await api.call(`/console-overview/${api.orgId}`, { token });
        const body = (await response.json()) as {
          hours: unknown[];
          totals: {
            deliveries: { succeeded: number; failed: number; pending: number };
            reports: { completed: number; failed: number };
          };
          latestEvents: { type: string }[];
          complete: boolean;
        };
        if (body.totals.reports.completed < 1) throw new Error('the report has not completed yet');
        return body;
      },
      { timeoutMs: 20_000 },
    );

    expect(overview.hours).toHaveLength(24);
    const { succeeded, failed, pending } = overview.totals.deliveries;
    expect(succeeded + failed + pending).toBeGreaterThanOrEqual(1);
    expect(overview.latestEvents.some((event) => event.type === 'report.completed')).toBe(true);
    expect(overview.complete).toBe(true);
  });
});
