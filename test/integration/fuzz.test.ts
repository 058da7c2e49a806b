import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { deps } from '#shared/config/deps';
import { ROLES, type Role } from '#shared/domain/auth/roles';
import { createChannel, createCredential, createOrg } from '#shared/domain/orgs/administer';
import { PROBLEMS } from '#shared/http/problem';
import { openApiDocument } from '#shared/openapi/document';
import { ROUTES } from '#shared/routes/index';
import { BASE_PATH, type RouteDef } from '#shared/routes/route';
import { bodyFor, fuzzText, rawBody, segment } from '#test/support/fuzz';
import { eventually, useLocalStack } from '#test/support/local-stack';

/** Requests per CI run (K-1); `npm run fuzz` runs many more. The seed makes a failure reproducible. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const SHARDS = 4;

interface Tenant {
  orgId: string;
  tokens: Record<Role, string>;
  credentials: Record<Role, { clientId: string; clientSecret: string }>;
  /** Ids of this organisation's objects, by path parameter name. */
  ids: Record<string, string[]>;
}

const document = openApiDocument() as {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: object }> } }>>;
};
const bodySchema = (route: RouteDef) =>
  document.paths[`${BASE_PATH}${route.path}`]?.[route.method.toLowerCase()]?.requestBody?.content['application/json']
    ?.schema;

describe('every route under generated requests (K-1)', () => {
  const api = useLocalStack({
    GROUP_CREATE_RATE_LIMIT: '100000/60',
    ORG_REQUEST_RATE_LIMIT: '100000000/60',
    NETWORK_CALL_RATE_LIMIT: '100000000/60',
  });
  const tenants: Record<'A' | 'B', Tenant> = {} as never;

  beforeAll(async () => {
    tenants.A = await tenant(api.orgId, api.stack.demo!.credentials, api.stack.demo!.channels.eligible);
    const { orgId } = await createOrg(deps(), { name: 'Tenant B' });
    const credentials = {} as Tenant['credentials'];
    for (const role of ROLES) {
      const { clientId, clientSecret } = await createCredential(deps(), { orgId, roles: [role] });
      credentials[role] = { clientId, clientSecret };
    }
    const { channelId } = await createChannel(deps(), {
      orgId,
      name: 'B WhatsApp',
      type: 'MESSAGING_OFFICIAL',
      phoneNumber: '+4915100000777',
      officialBusinessAccount: true,
      phoneNumberId: '100000000000777',
      accessToken: 'local-simulator-access-token',
    });
    tenants.B = await tenant(orgId, credentials, channelId);
  }, 120_000);

  async function tenant(orgId: string, credentials: Tenant['credentials'], channelId: string): Promise<Tenant> {
    const tokens = {} as Tenant['tokens'];
    for (const role of ROLES) {
      const response = await api.call('/token', { method: 'POST', json: credentials[role] });
      expect(response.status, `token for ${role}`).toBe(200);
      tokens[role] = ((await response.json()) as { accessToken: string }).accessToken;
    }
    const admin = tokens.CRM_ADMIN;
    const created = (await (
      await api.call(`/groups/${orgId}`, { method: 'POST', token: admin, json: { channelId, subject: 'Fuzz' } })
    ).json()) as { requestId: string };
    expect(created.requestId, JSON.stringify(created)).toBeDefined();
    const chatId = await eventually(async () => {
      const status = (await (
        await api.call(`/groups/${orgId}/creation-status/${created.requestId}`, { token: admin })
      ).json()) as { chatId?: string };
      expect(status.chatId, JSON.stringify(status)).toBeDefined();
      return status.chatId!;
    });
    const report = (await (
      await api.call(`/reports/${orgId}`, { method: 'POST', token: admin, json: { reportType: 'GOAL' } })
    ).json()) as { reportId: string };
    const webhook = (await (
      await api.call(`/webhooks/${orgId}`, { method: 'POST', token: admin, json: { url: 'http://127.0.0.1:9/hook' } })
    ).json()) as { webhookId: string };
    return {
      orgId,
      tokens,
      credentials,
      ids: {
        chatId: [chatId],
        requestId: [created.requestId],
        reportId: [report.reportId],
        webhookId: [webhook.webhookId],
        deliveryId: ['dlv_01M80000000000000000000000'],
        channelId: [channelId],
      },
    };
  }

  /** Everything of `tenant` a body must not show to anyone else. */
  const secretsOf = (tenant: Tenant) => [
    tenant.orgId,
    ...Object.values(tenant.ids).flat(),
    ...Object.values(tenant.credentials).flatMap((credential) => [credential.clientId, credential.clientSecret]),
  ];

  const request = fc.record({
    operationId: fc.option(fc.constantFrom(...ROUTES.map((route) => route.operationId)), { nil: undefined, freq: 20 }),
    randomPath: fc.array(
      fuzzText.map((text) => encodeURIComponent(text)),
      { minLength: 1, maxLength: 4 },
    ),
    method: fc.option(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'), { freq: 10 }),
    actor: fc.constantFrom('A', 'A', 'A', 'B', 'none', 'garbage'),
    role: fc.constantFrom(...ROLES),
    scheme: fc.constantFrom('Bearer', 'Bearer', 'bearer', 'BEARER', 'Basic', ''),
    pathOrg: fc.constantFrom('self', 'self', 'self', 'other', 'upper', 'random', 'junk'),
    idOwner: fc.constantFrom('self', 'self', 'other', 'random'),
    segments: fc.array(segment([]), { minLength: 4, maxLength: 4 }),
    query: fc.dictionary(
      fc.constantFrom('limit', 'cursor', 'status', 'reportType', 'channelId', 'redirect', 'hub.mode', 'x'),
      fc.oneof(fuzzText, fc.constantFrom('0', '1', '100', '101', '-1', '1e3', 'true', 'eyJwIjp7fSwiYiI6IngifQ')),
      { maxKeys: 3 },
    ),
    contentType: fc.constantFrom(
      'application/json',
      'application/json',
      'APPLICATION/JSON; charset=utf-8',
      'text/plain',
      undefined,
    ),
    idempotencyKey: fc.option(fc.oneof(fuzzText, fc.constant('k'.repeat(300))), { freq: 4 }),
    bodySeed: fc.integer(),
    oversize: fc.nat(49).map((draw) => draw === 0),
  });

  it(`never answers 5xx, always problem+json for errors, never another organisation's data (${RUNS} requests)`, async () => {
    await Promise.all(
      Array.from({ length: SHARDS }, (_, shard) =>
        fc.assert(
          fc.asyncProperty(request, async (generated) => {
            const route = ROUTES.find((candidate) => candidate.operationId === generated.operationId);
            const self = generated.actor === 'B' ? tenants.B : tenants.A;
            const other = self === tenants.A ? tenants.B : tenants.A;
            const owner = generated.idOwner === 'other' ? other : self;
            const orgSegment = {
              self: self.orgId,
              other: other.orgId,
              upper: self.orgId.toUpperCase(),
              random: crypto.randomUUID(),
              junk: generated.segments[0]!,
            }[generated.pathOrg]!;
            let index = 1;
            const path = route
              ? route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
                  if (name === 'orgId' || name === 'organisationId') return orgSegment;
                  const known = owner.ids[name];
                  return generated.idOwner === 'random' || !known ? generated.segments[index++ % 4]! : known[0]!;
                })
              : `/${generated.randomPath.join('/')}`;
            const method = generated.method ?? route?.method ?? 'GET';
            const headers: Record<string, string> = {};
            if (generated.actor === 'A' || generated.actor === 'B') {
              headers.authorization = `${generated.scheme} ${self.tokens[generated.role]}`.trim();
            } else if (generated.actor === 'garbage') {
              headers.authorization = `Bearer ${latin1(generated.segments[1]!)}`;
            }
            if (generated.contentType) headers['content-type'] = generated.contentType;
            if (generated.idempotencyKey) headers['idempotency-key'] = latin1(generated.idempotencyKey);
            const schema = route ? bodySchema(route) : undefined;
            const body = generated.oversize
              ? 'x'.repeat(300 * 1024)
              : fc.sample(rawBody(bodyFor(schema)), { seed: generated.bodySeed, numRuns: 1 })[0];
            const query = new URLSearchParams(generated.query).toString();
            const sent = `${method} ${path}?${query} ${JSON.stringify(headers)} ${body ?? ''}`;

            const response = await fetch(`${api.stack.apiUrl}${path}${query ? `?${query}` : ''}`, {
              method,
              headers,
              body: method === 'GET' || method === 'HEAD' ? undefined : body,
              redirect: 'manual',
            });
            const text = await response.text();

            const label = `${sent.slice(0, 500)} → ${response.status} ${text.slice(0, 300)}`;
            expect(response.status, label).toBeLessThan(500);
            expect(response.headers.get('x-request-id'), label).toBeTruthy();
            if (response.status >= 400 && method !== 'HEAD') {
              expect(response.headers.get('content-type'), label).toBe('application/problem+json');
              const problem = JSON.parse(text) as { code: keyof typeof PROBLEMS; status: number; instance: string };
              expect(PROBLEMS[problem.code], label).toBeDefined();
              expect(problem.status, label).toBe(response.status);
              // The contract's one status override: an unassigned primaryUserId is a 422 VALIDATION_FAILED (§3).
              const documented = problem.code === 'VALIDATION_FAILED' ? [400, 422] : [PROBLEMS[problem.code].status];
              expect(documented, label).toContain(response.status);
              expect(problem.instance, label).toBe(response.headers.get('x-request-id'));
            }
            const foreign = secretsOf(other).filter((value) => text.includes(value) && !sent.includes(value));
            expect(foreign, label).toEqual([]);
            expect(text, label).not.toMatch(/node_modules|\/work\/|\bat .+\.(ts|js):\d+/);
          }),
          { numRuns: Math.ceil(RUNS / SHARDS), seed: SEED + shard, endOnFailure: true },
        ),
      ),
    );
  }, 900_000);
});

/** Header values carry bytes without control characters (HTTP refuses those before any handler runs). */
const latin1 = (text: string) =>
  Buffer.from(text, 'utf8')
    .toString('latin1')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
    .replace(/[\x00-\x1f\x7f]/g, '');
