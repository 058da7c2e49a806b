import { toJsonSchema } from '@valibot/to-json-schema';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '#shared/events/catalog';
import { openApiDocument } from '#shared/openapi/document';
import { withServer } from '#shared/openapi/served';
import { ROUTES } from '#shared/routes/index';
import { EVENT_BODIES } from '#shared/schemas/events';

interface Response {
  description: string;
  content?: Record<string, { schema: unknown }>;
}
interface Operation {
  responses: Record<string, Response>;
}

const document = openApiDocument() as {
  info: Record<string, unknown>;
  paths: Record<string, Record<string, Operation>>;
};
const operationOf = (route: (typeof ROUTES)[number]) =>
  document.paths[`/api/wp-crm${route.path}`]![route.method.toLowerCase()]!;

describe('openApiDocument', () => {
  it('gives every operation at least one 4XX answer', () => {
    for (const route of ROUTES) {
      expect(
        Object.keys(operationOf(route).responses).filter((status) => status.startsWith('4')),
        route.operationId,
      ).not.toHaveLength(0);
    }
  });

  it('derives 401 and 403 for every protected route, and 400, 413 and 415 for every JSON body', () => {
    for (const route of ROUTES) {
      const statuses = Object.keys(operationOf(route).responses);

      if (route.auth !== 'public') expect(statuses, route.operationId).toEqual(expect.arrayContaining(['401', '403']));
      if (route.body) expect(statuses, route.operationId).toEqual(expect.arrayContaining(['400', '413', '415']));
      if (route.query || route.params || route.idempotent) expect(statuses, route.operationId).toContain('400');
    }
  });

  it("names the organisation parameter in the 401 of a route bound to the token's organisation", () => {
    const listChannels = ROUTES.find((route) => route.operationId === 'listChannels')!;

    expect(operationOf(listChannels).responses['401']!.description).toContain('ORG_MISMATCH: {orgId}');
  });

  it("documents API Gateway's throttling on every operation, beside a route's own 429 problem", () => {
    const createGroup = ROUTES.find((route) => route.operationId === 'createGroup')!;

    for (const route of ROUTES) {
      expect(operationOf(route).responses['429']!.content!['application/json'], route.operationId).toMatchObject({
        schema: { $ref: '#/components/schemas/GatewayError' },
      });
    }
    const own = operationOf(createGroup).responses['429']!;
    expect(own.description).toMatch(/^RATE_LIMITED .*Too Many Requests/);
    expect(own.content!['application/problem+json']).toMatchObject({
      schema: { $ref: '#/components/schemas/Problem' },
    });
  });

  it('keeps a description the route gives for a derived status', () => {
    const createGroup = ROUTES.find((route) => route.operationId === 'createGroup')!;

    expect(operationOf(createGroup).responses['422']!.description).toBe(createGroup.responses[422]!.description);
  });

  it('declares a licence with an SPDX reference', () => {
    expect(document.info.license).toEqual({ name: 'Proprietary', identifier: 'LicenseRef-Proprietary' });
  });
});

describe('withServer', () => {
  it('declares the origin it is served from as the only server, right after info', () => {
    const served = withServer(document, 'https://api.example.test');

    expect(served.servers).toEqual([{ url: 'https://api.example.test', description: 'This deployment' }]);
    expect(Object.keys(served).slice(0, 3)).toEqual(['openapi', 'info', 'servers']);
    expect(served.paths).toBe(document.paths);
  });

  it('describes every event body under webhooks, from the schema the publisher validates against', () => {
    const webhooks = (openApiDocument() as { webhooks: Record<string, { post: Record<string, unknown> }> }).webhooks;

    expect(Object.keys(webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      const body = webhooks[type]!.post.requestBody as { content: Record<string, { schema: unknown }> };
      expect(body.content['application/json']!.schema, type).toEqual(toJsonSchemaWithout$schema(EVENT_BODIES[type]));
    }
    const updated = webhooks['group.updated']!.post.requestBody as {
      content: { 'application/json': { schema: { required: string[] } } };
    };
    expect(updated.content['application/json'].schema.required).toEqual(
      expect.arrayContaining(['type', 'timestamp', 'organisation_id', 'chat_id', 'group_status', 'errors']),
    );
  });
});

function toJsonSchemaWithout$schema(schema: Parameters<typeof toJsonSchema>[0]) {
  const { $schema, ...rest } = toJsonSchema(schema, {
    target: 'draft-2020-12',
    typeMode: 'input',
    errorMode: 'ignore',
  });
  return rest;
}
