import { toJsonSchema } from '@valibot/to-json-schema';
import type { GenericSchema } from 'valibot';
import { EVENT_TYPES, type EventType } from '#shared/events/catalog';
import { PROBLEMS } from '#shared/http/problem';
import { ROUTES } from '#shared/routes/index';
import { BASE_PATH, type RouteDef } from '#shared/routes/route';
import { EVENT_BODIES, EVENT_SUMMARIES } from '#shared/schemas/events';

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

const PROBLEM = { $ref: '#/components/schemas/Problem' };
const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: PROBLEM } },
});

const GATEWAY_THROTTLING =
  'On AWS, API Gateway\'s stage throttling answers `{"message":"Too Many Requests"}` (not a problem document)';

/**
 * The 4XX answers a route gives by its shape alone, in the contract's order of checks (CONTRACT §1): token and
 * organisation, role, then media type, size and input. A status the route describes itself keeps its description.
 */
function shapeErrors(route: RouteDef): Record<string, ReturnType<typeof problem>> {
  const errors: Record<string, ReturnType<typeof problem>> = {};
  if (route.auth !== 'public') {
    errors['401'] = problem(
      route.orgParam
        ? `UNAUTHORIZED: missing or invalid bearer token; ORG_MISMATCH: {${route.orgParam}} is not the token's organisation`
        : 'UNAUTHORIZED: missing or invalid bearer token',
    );
    errors['403'] = problem(`FORBIDDEN: the token has none of the roles ${route.auth.join(', ')}`);
    errors['429'] = problem(quotaRefusal(route));
  }
  if (route.body || route.rawBody) errors['413'] = problem('PAYLOAD_TOO_LARGE: the body is over 256 KiB');
  if (route.body) errors['415'] = problem('UNSUPPORTED_MEDIA_TYPE: the body is not application/json');
  const invalid = [
    route.body && 'the body',
    route.query && '#/query/…',
    route.params && '#/path/…',
    route.idempotent && '#/header/idempotency-key',
  ].filter(Boolean);
  if (invalid.length > 0) {
    errors['400'] = problem(
      `VALIDATION_FAILED: errors[] points into ${invalid.join(', ')}${route.body ? '; MALFORMED_JSON' : ''}`,
    );
  }
  return errors;
}

/** Every authenticated route counts against its organisation's quotas (CONTRACT §18). */
const quotaRefusal = (route: RouteDef) =>
  `RATE_LIMITED (Retry-After, retryAfterSeconds): ORG_REQUEST_RATE_LIMIT per organisation, 1200/60 by default${
    route.callsNetwork ? '; this route calls Meta and also counts against NETWORK_CALL_RATE_LIMIT, 120/60' : ''
  }`;

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
        ? PROBLEM
        : response.contentType?.startsWith('text/')
          ? { type: 'string' }
          : undefined;
    responses[status] = {
      description: response.description,
      ...(schema ? { content: { [contentType]: { schema } } } : {}),
    };
  }
  for (const [status, error] of Object.entries(shapeErrors(route))) responses[status] ??= error;
  if (route.auth !== 'public' && route.responses[429]) {
    const own = responses['429'] as { description: string };
    own.description = `${own.description}; ${quotaRefusal(route)}`;
  }
  const own429 = responses['429'] as { description: string; content?: Record<string, unknown> } | undefined;
  responses['429'] = {
    description: own429 ? `${own429.description}. ${GATEWAY_THROTTLING}` : GATEWAY_THROTTLING,
    content: { ...own429?.content, 'application/json': { schema: { $ref: '#/components/schemas/GatewayError' } } },
  };
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

const DELIVERY_HEADERS = [
  ['webhook-id', 'The event id: the same on every retry and redelivery; dedupe on it'],
  ['webhook-timestamp', 'Unix seconds of this attempt'],
  [
    'webhook-signature',
    'v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>"> keyed by the secret after whsec_; ' +
      'space-separated values during a secret rotation',
  ],
].map(([name, description]) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } }));

const eventOperationId = (type: EventType) =>
  `${type.replace(/[._](\w)/g, (_, letter: string) => letter.toUpperCase())}Event`;

/**
 * The requests the service sends to subscribed URLs (CONTRACT §7, §12), one per event type, with the body schema
 * the publisher validates every event against.
 */
function webhookOperations() {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: eventOperationId(type),
          summary: EVENT_SUMMARIES[type],
          description:
            'Standard Webhooks delivery: answer 2xx within 10 s. Anything else is retried 5 s, 5 min, 30 min, 2 h, ' +
            '5 h, 10 h and 10 h later (±10 %); redirects are not followed.',
          tags: ['events'],
          security: [],
          parameters: DELIVERY_HEADERS,
          requestBody: { required: true, content: { 'application/json': { schema: convert(EVENT_BODIES[type]) } } },
          responses: {
            '2XX': { description: 'Received' },
            '410': { description: 'Gone: the subscription is disabled (disabledReason GONE) and nothing more is sent' },
            '429': { description: 'Retried; a Retry-After longer than the schedule is honoured (also on 503)' },
          },
        },
      },
    ]),
  );
}

/**
 * The OpenAPI 3.1 document of every route, generated from the schemas that validate requests. Its paths are the
 * contract's full paths (with BASE_PATH, as API Gateway routes them), so the server is the bare origin; that depends
 * on the deployment, so `withServer` adds it per request.
 */
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
      // A private service: no public licence text to link, so an SPDX reference to our own terms.
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT (ES256, typ at+jwt)' } },
      schemas: {
        Problem: problemSchema,
        GatewayError: {
          type: 'object',
          required: ['message'],
          properties: { message: { type: 'string' } },
          description: 'An error API Gateway produces itself (throttling), before the service sees the request',
        },
      },
    },
    security: [{ bearer: [] }],
    paths,
    webhooks: webhookOperations(),
  };
}

/** The document as served from `origin` (scheme, host and port, no path): `servers` names that deployment. */
export function withServer(document: Record<string, unknown>, origin: string): Record<string, unknown> {
  const { openapi, info, ...rest } = document;
  return { openapi, info, servers: [{ url: origin, description: 'This deployment' }], ...rest };
}
