import { describe, expect, it } from 'vitest';
import { ROLES } from '#shared/domain/auth/roles';
import { openApiDocument } from '#shared/openapi/document';
import { withServer } from '#shared/openapi/served';
import { ROUTES } from '#shared/routes/index';
import type { RouteDef } from '#shared/routes/route';
import { useLocalStack } from '#test/support/local-stack';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

const concretePath = (route: RouteDef, orgId: string) =>
  route.path.replace(/\{(orgId|organisationId)\}/g, orgId).replace(/\{\w+\}/g, 'x_unknown');

describe('HTTP contract', () => {
  const api = useLocalStack();

  it('answers 404 ROUTE_NOT_FOUND as problem+json with X-Request-Id as its instance', async () => {
    const response = await api.call('/no/such/route');

    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    const body = (await response.json()) as { code: string; instance: string; type: string };
    expect(body.code).toBe('ROUTE_NOT_FOUND');
    expect(body.instance).toBe(response.headers.get('x-request-id'));
    expect(body.type).toBe('https://wp-crm.dev/problems/route-not-found');
  });

  it('answers 405 with Allow for every method a route does not take, never 2xx (B-4)', async () => {
    const paths = new Map<string, Set<string>>();
    for (const route of ROUTES) {
      const path = concretePath(route, api.orgId);
      paths.set(path, (paths.get(path) ?? new Set()).add(route.method));
    }

    for (const [path, allowed] of paths) {
      for (const method of METHODS.filter((candidate) => !allowed.has(candidate))) {
        const response = await api.call(path, { method });
        expect(response.status, `${method} ${path}`).toBe(405);
        expect(((await response.json()) as { code: string }).code).toBe('METHOD_NOT_ALLOWED');
        expect(response.headers.get('allow')?.split(', ').sort()).toEqual([...allowed].sort());
      }
    }
  });

  it('gives each role exactly the routes it may call (B-3)', async () => {
    const tokens = Object.fromEntries(
      await Promise.all(ROLES.map(async (role) => [role, await api.token(role)] as const)),
    );

    for (const route of ROUTES.filter((candidate) => candidate.auth !== 'public')) {
      for (const role of ROLES) {
        const response = await api.call(concretePath(route, api.orgId), {
          method: route.method,
          token: tokens[role],
          ...(route.body ? { json: {} } : {}),
        });
        const allowed = (route.auth as readonly string[]).includes(role);
        const label = `${role} ${route.method} ${route.path}`;
        if (allowed) expect([401, 403], label).not.toContain(response.status);
        else expect(response.status, label).toBe(403);
        expect(response.status, label).toBeLessThan(500);
      }
    }
  });

  it('answers 401 on every non-public route without a token or with a garbage one (K-2)', async () => {
    for (const route of ROUTES.filter((candidate) => candidate.auth !== 'public')) {
      for (const headers of [{}, { authorization: 'Bearer not.a.token' }] as Record<string, string>[]) {
        const response = await api.call(concretePath(route, api.orgId), {
          method: route.method,
          headers,
          ...(route.body ? { json: {} } : {}),
        });
        expect(response.status, `${route.method} ${route.path}`).toBe(401);
      }
    }
  });

  it('checks the role before the body: a forbidden caller with a bad body gets 403', async () => {
    const route = ROUTES.find(
      (candidate) => candidate.body && candidate.auth !== 'public' && candidate.auth.length < ROLES.length,
    );
    if (!route) return;
    const forbiddenRole = ROLES.find((role) => !(route.auth as readonly string[]).includes(role))!;

    const response = await api.call(concretePath(route, api.orgId), {
      method: route.method,
      token: await api.token(forbiddenRole),
      body: '{',
      headers: { 'content-type': 'application/json' },
    });

    expect(response.status).toBe(403);
  });

  it('answers 413 for a body over 256 KiB, 415 for a non-JSON type, 400 for `{` and for deep nesting (C-1)', async () => {
    const huge = await api.call('/token', {
      method: 'POST',
      body: JSON.stringify({ clientId: 'x'.repeat(256 * 1024), clientSecret: 'y' }),
      headers: { 'content-type': 'application/json' },
    });
    const text = await api.call('/token', {
      method: 'POST',
      body: 'clientId=a',
      headers: { 'content-type': 'text/plain' },
    });
    const truncated = await api.call('/token', {
      method: 'POST',
      body: '{',
      headers: { 'content-type': 'application/json' },
    });
    const array = await api.call('/console-sessions/sign-out', {
      method: 'POST',
      body: '[]',
      headers: { 'content-type': 'application/json' },
    });
    const deep = await api.call('/token', {
      method: 'POST',
      body: `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
      headers: { 'content-type': 'application/json' },
    });

    expect(huge.status).toBe(413);
    expect(((await huge.json()) as { code: string }).code).toBe('PAYLOAD_TOO_LARGE');
    expect(text.status).toBe(415);
    expect(((await text.json()) as { code: string }).code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(truncated.status).toBe(400);
    expect(((await truncated.json()) as { code: string }).code).toBe('MALFORMED_JSON');
    // A body whose properties are all optional still refuses an array (valibot's object schemas take one).
    expect(array.status).toBe(400);
    expect(((await array.json()) as { code: string }).code).toBe('VALIDATION_FAILED');
    expect(deep.status).toBe(400);
    expect(((await deep.json()) as { code: string; detail?: string }).detail ?? '').not.toMatch(/stack|RangeError/i);
  });

  it('names every invalid query parameter with a #/query pointer', async () => {
    const token = await api.token('CRM_AGENT');

    const response = await api.call(`/channels/${api.orgId}?limit=0&color=blue`, { token });

    expect(response.status).toBe(400);
    const body = (await response.json()) as { errors: { pointer: string }[] };
    expect(body.errors.map((error) => error.pointer).sort()).toEqual(['#/query/color', '#/query/limit']);
  });

  it('answers 400 for limit=10^6 instead of reading a million items (C-2)', async () => {
    const token = await api.token('CRM_AGENT');

    const response = await api.call(`/channels/${api.orgId}?limit=1000000`, { token });

    expect(response.status).toBe(400);
    expect(((await response.json()) as { errors: { pointer: string }[] }).errors[0]?.pointer).toBe('#/query/limit');
  });

  it('pages with an opaque cursor that is refused for another organisation or when altered', async () => {
    const token = await api.token('CRM_AGENT');

    const first = (await (await api.call(`/channels/${api.orgId}?limit=2`, { token })).json()) as {
      channels: { channelId: string }[];
      nextCursor: string;
    };
    const second = (await (
      await api.call(`/channels/${api.orgId}?limit=2&cursor=${first.nextCursor}`, { token })
    ).json()) as {
      channels: { channelId: string }[];
      nextCursor: string | null;
    };
    const altered = await api.call(`/channels/${api.orgId}?cursor=${first.nextCursor}x`, { token });

    expect(first.channels).toHaveLength(2);
    expect(second.channels).toHaveLength(1);
    expect(second.nextCursor).toBeNull();
    expect(new Set([...first.channels, ...second.channels].map((channel) => channel.channelId)).size).toBe(3);
    expect(altered.status).toBe(400);
    expect(((await altered.json()) as { errors: { pointer: string }[] }).errors[0]!.pointer).toBe('#/query/cursor');
  });

  it('serves health and an OpenAPI 3.1 document that covers every route: the one clients are generated from', async () => {
    const health = await api.call('/health');
    const document = (await (await api.call('/openapi.json')).json()) as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
      servers: { url: string }[];
    };

    expect(await health.json()).toEqual({ status: 'ok' });
    expect(health.headers.get('x-request-id')).toBeTruthy();
    expect(document.openapi).toBe('3.1.0');
    for (const route of ROUTES) {
      expect(
        document.paths[`/api/wp-crm${route.path}`]?.[route.method.toLowerCase()],
        `${route.method} ${route.path}`,
      ).toBeDefined();
    }
    // npm run test:generators generates from test/support/write-openapi.ts's copy: the same but for the server.
    expect(document).toEqual(JSON.parse(JSON.stringify(withServer(openApiDocument(), document.servers[0]!.url))));
  });
});
