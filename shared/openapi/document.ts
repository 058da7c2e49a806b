import { toJsonSchema } from '@valibot/to-json-schema';
import type { GenericSchema } from 'valibot';
import { PROBLEMS } from '#shared/http/problem';
import { ROUTES } from '#shared/routes/index';
import { BASE_PATH, type RouteDef } from '#shared/routes/route';

const convert = (schema: GenericSchema) => {
  const { $schema, ...rest } = toJsonSchema(schema, {
    target: 'draft-2020-12',
    typeMode: 'input',
    errorMode: 'ignore',
  });
  return rest;
};

const problemSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'code', 'instance'],
  properties: {
    type: { type: 'string', format: 'uri' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', enum: Object.keys(PROBLEMS) },
    instance: { type: 'string', description: 'The request id (X-Request-Id), also in the logs' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: { pointer: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
};

function operation(route: RouteDef) {
  const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => ({
    name: match[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const query = route.query
    ? (convert(route.query) as { properties?: Record<string, unknown>; required?: string[] })
    : {};
  const queryParams = Object.entries(query.properties ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: query.required?.includes(name) ?? false,
    schema,
  }));
  const headerParams = (route.headers ?? []).map((header) => ({
    name: header.name,
    in: 'header',
    required: header.required ?? false,
    description: header.description,
    schema: { type: 'string' },
  }));
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(route.responses)) {
    const isProblem = Number(status) >= 400;
    const contentType = response.contentType ?? (isProblem ? 'application/problem+json' : 'application/json');
    const schema = response.schema
      ? convert(response.schema)
      : isProblem
        ? { $ref: '#/components/schemas/Problem' }
        : undefined;
    responses[status] = {
      description: response.description,
      ...(schema ? { content: { [contentType]: { schema } } } : {}),
    };
  }
  if (route.auth !== 'public') {
    responses['401'] ??= {
      description: 'UNAUTHORIZED or ORG_MISMATCH',
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    };
    responses['403'] ??= {
      description: 'FORBIDDEN: no allowed role',
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    };
  }
  if (route.body || route.query) {
    responses['400'] ??= {
      description: 'VALIDATION_FAILED or MALFORMED_JSON',
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    };
  }
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    ...(route.auth === 'public'
      ? { security: [] }
      : { description: `Roles: ${route.auth.join(', ')}`, security: [{ bearer: [] }] }),
    parameters: [...pathParams, ...queryParams, ...headerParams],
    ...(route.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: convert(route.body) } } } }
      : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document of every route, generated from the schemas that validate requests. */
export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    const path = `${BASE_PATH}${route.path}`;
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'wp-crm groups & reports API',
      version: '1.0.0',
      description:
        'WhatsApp group chats on official channels, CRM reports and signed webhooks. Errors are RFC 9457 problem documents.',
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT (ES256, typ at+jwt)' } },
      schemas: { Problem: problemSchema },
    },
    security: [{ bearer: [] }],
    paths,
  };
}
