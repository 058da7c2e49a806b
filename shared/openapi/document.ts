import { toJsonSchema } from '@valibot/to-json-schema';
import type { GenericSchema } from 'valibot';
import { EVENT_TYPES, type EventType } from '#shared/events/catalog';
import { PROBLEMS } from '#shared/http/problem';
import { ROUTES } from '#shared/routes/index';
import { BASE_PATH, type RouteDef } from '#shared/routes/route';
import { Limit } from '#shared/schemas/common';
import { EVENT_BODIES, EVENT_SUMMARIES } from '#shared/schemas/events';
import { RESPONSE_SCHEMAS } from '#shared/schemas/responses';
import { EVENT_EXAMPLES, OPERATION_EXAMPLES, PATH_PARAMETER_EXAMPLES } from './examples.ts';

/** The query's `limit` travels as text, but means an integer 1–100 (CONTRACT §10): documented as what it means. */
const LIMIT_SCHEMA = { type: 'integer', minimum: 1, maximum: 100, default: 20 } as const;

const convert = (schema: GenericSchema) => {
  const { $schema, ...rest } = toJsonSchema(schema, {
    target: 'draft-2020-12',
    typeMode: 'input',
    errorMode: 'ignore',
    overrideSchema: ({ valibotSchema, jsonSchema }) => {
      if (valibotSchema === Limit) return LIMIT_SCHEMA;
      // An open object says so; every other object lists all it has (validators treat the rest as undeclared).
      if (valibotSchema.type === 'loose_object') return { ...jsonSchema, additionalProperties: true };
      return undefined;
    },
  });
  return rest;
};

/** Response headers, as components: X-Request-Id on every answer, the others where the service sends them. */
const HEADERS = {
  'X-Request-Id': {
    description: "The request id, also the problem document's `instance` and in the logs",
    schema: { type: 'string', example: '2aef3430-e142-4094-b746-da48d9589c83' },
  },
  Location: {
    description: 'Where the created or requested resource is (a path below the server, or a pre-signed URL on 303)',
    schema: { type: 'string', format: 'uri-reference' },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again',
    schema: { type: 'integer', minimum: 1, example: 30 },
  },
  'Cache-Control': {
    description: 'The answer carries a secret, a token or a URL that works as one (CONTRACT §13): never cached',
    schema: { type: 'string', const: 'no-store' },
  },
  'Cache-Control (cacheable)': {
    description: 'How long a cache may keep the answer: public keys and the reference page’s assets',
    schema: { type: 'string', examples: ['public, max-age=300', 'no-cache', 'public, max-age=31536000, immutable'] },
  },
  'WWW-Authenticate': {
    description: 'The bearer challenge (RFC 6750)',
    schema: { type: 'string', example: 'Bearer realm="wp-crm", error="invalid_token"' },
  },
  'Set-Cookie': {
    description:
      'The console session cookie: HttpOnly, SameSite=Strict, Path=/api/wp-crm/console-sessions, Secure except on ' +
      'loopback; cleared (Max-Age=0) on sign-out',
    schema: {
      type: 'string',
      example:
        'wpcrm_console=cs_01M80K2H3J4K5M6N7P8Q9R0S1T.q8Y…; Path=/api/wp-crm/console-sessions; Max-Age=86400; HttpOnly; SameSite=Strict; Secure',
    },
  },
  'Content-Security-Policy': {
    description:
      "The console's policy: default-src 'self', no inline script, no other origin; frame-ancestors 'none' unless " +
      'CONSOLE_FRAME_ANCESTORS lists origins',
    schema: { type: 'string', example: "default-src 'self'; script-src 'self'; frame-ancestors 'none'" },
  },
  'Idempotent-Replayed': {
    description: 'Present (true) when the answer replays the first one for this Idempotency-Key',
    schema: { type: 'string', const: 'true' },
  },
} as const;
type HeaderName = keyof typeof HEADERS;

/** Headers always sent with an answer of this kind are required; the others may be. */
const ALWAYS: ReadonlySet<HeaderName> = new Set([
  'X-Request-Id',
  'Location',
  'Cache-Control',
  'Cache-Control (cacheable)',
  'WWW-Authenticate',
  'Set-Cookie',
  'Content-Security-Policy',
]);
/** A header's name on the wire: `Cache-Control (cacheable)` is Cache-Control with other values than no-store. */
const wireName = (name: HeaderName) => name.replace(/ \(.*\)$/, '');
const responseHeaders = (names: Iterable<HeaderName>, always: ReadonlySet<HeaderName> = ALWAYS) =>
  Object.fromEntries(
    [...new Set(names)].map((name) => [wireName(name), { ...HEADERS[name], required: always.has(name) }]),
  );

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
      description: 'VALIDATION_FAILED: one entry per problem',
      items: {
        type: 'object',
        required: ['pointer', 'message'],
        properties: {
          pointer: { type: 'string', description: 'JSON pointer into the body, or #/query/…, #/path/…, #/header/…' },
          message: { type: 'string' },
        },
      },
    },
    reason: {
      type: 'string',
      description: 'CHANNEL_NOT_ELIGIBLE and WEBHOOK_URL_NOT_ALLOWED: why (e.g. NOT_OFFICIAL, PRIVATE_ADDRESS)',
    },
    reportId: { type: 'string', description: 'REPORT_RATE_LIMITED: the report that blocks this request' },
    retryAfterSeconds: {
      type: ['integer', 'null'],
      minimum: 1,
      description:
        'REPORT_RATE_LIMITED, SCHEDULE_CONFLICT, RATE_LIMITED, TOO_MANY_ATTEMPTS: seconds to wait (also in Retry-After)',
    },
    networkCode: { type: 'integer', description: "NETWORK_REJECTED: the messaging network's error code" },
    limit: {
      type: 'integer',
      description:
        'WEBHOOK_LIMIT_REACHED: subscriptions an organisation may have; SCHEDULE_LIMIT_REACHED: report schedules',
    },
  },
  example: {
    type: 'https://wp-crm.dev/problems/chat-not-found',
    title: 'Chat not found',
    status: 404,
    detail: 'chat cht_01M80K1R10W8DAZKGWSRRYPVK7 not found',
    code: 'CHAT_NOT_FOUND',
    instance: '2aef3430-e142-4094-b746-da48d9589c83',
  },
};

const PROBLEM = { $ref: '#/components/schemas/Problem' };

/** The first error code a description names, for the problem example of that answer. */
const codeIn = (description: string, status: number) =>
  (Object.keys(PROBLEMS) as (keyof typeof PROBLEMS)[]).find(
    (code) => PROBLEMS[code].status === status && description.includes(code),
  ) ?? (Object.keys(PROBLEMS) as (keyof typeof PROBLEMS)[]).find((code) => PROBLEMS[code].status === status);

function problemExample(status: number, description: string) {
  const code = codeIn(description, status) ?? 'INTERNAL';
  return {
    type: `https://wp-crm.dev/problems/${code.toLowerCase().replaceAll('_', '-')}`,
    title: PROBLEMS[code].title,
    status,
    detail: PROBLEM_DETAILS[code] ?? PROBLEMS[code].title.toLowerCase(),
    code,
    instance: '2aef3430-e142-4094-b746-da48d9589c83',
    ...(code === 'VALIDATION_FAILED'
      ? { errors: [{ pointer: '/subject', message: 'must be 1–128 characters after trimming' }] }
      : {}),
    ...(code === 'REPORT_RATE_LIMITED' ? { reportId: 'rpt_01M80K2A3JX9E7F0QH4C2Y6V8T', retryAfterSeconds: 212 } : {}),
    ...(code === 'RATE_LIMITED' || code === 'TOO_MANY_ATTEMPTS' ? { retryAfterSeconds: 12 } : {}),
    ...(code === 'CHANNEL_NOT_ELIGIBLE' ? { reason: 'NOT_OFFICIAL' } : {}),
    ...(code === 'WEBHOOK_URL_NOT_ALLOWED' ? { reason: 'PRIVATE_ADDRESS' } : {}),
    ...(code === 'NETWORK_REJECTED' ? { networkCode: 131009 } : {}),
  };
}

const PROBLEM_DETAILS: Partial<Record<keyof typeof PROBLEMS, string>> = {
  VALIDATION_FAILED: 'the request is not valid',
  UNAUTHORIZED: 'missing or invalid bearer token',
  FORBIDDEN: 'the token has none of the roles this operation needs',
  CHAT_NOT_FOUND: 'chat cht_01M80K1R10W8DAZKGWSRRYPVK7 not found',
  REPORT_RATE_LIMITED: 'a CHAT report was requested less than 300 s ago or is still running',
  RATE_LIMITED: 'at most 600 messages per 60 s',
  NETWORK_UNAVAILABLE: 'NETWORK_UNAVAILABLE',
  INTERNAL: 'INTERNAL',
};

/** Headers every problem of this status carries. */
const problemHeaders = (status: number): HeaderName[] => [
  'X-Request-Id',
  ...(status === 401 ? (['WWW-Authenticate'] as const) : []),
  ...(status === 429 || status === 503 ? (['Retry-After'] as const) : []),
];

const problem = (description: string, status: number, extraHeaders: readonly HeaderName[] = []) => ({
  description,
  headers: responseHeaders(
    [...problemHeaders(status), ...extraHeaders],
    status === 429 || status === 503 ? new Set([...ALWAYS, 'Retry-After' as const]) : ALWAYS,
  ),
  content: { 'application/problem+json': { schema: PROBLEM, example: problemExample(status, description) } },
});

const GATEWAY_THROTTLING =
  'On AWS, API Gateway\'s stage throttling answers `{"message":"Too Many Requests"}` (not a problem document)';

/** What API Gateway answers itself, before or instead of the function, as `{"message": …}` (not a problem). */
const GATEWAY_ANSWERS: Record<string, { message: string; description: string }> = {
  '413': {
    message: 'Request Entity Too Large',
    description: 'On AWS, API Gateway answers a body over its own limit with `{"message":"Request Entity Too Large"}`',
  },
  '429': { message: 'Too Many Requests', description: GATEWAY_THROTTLING },
  '500': {
    message: 'Internal Server Error',
    description: 'When the function fails before it answers, API Gateway answers `{"message":"Internal Server Error"}`',
  },
  '503': {
    message: 'Service Unavailable',
    description: 'When the function does not answer in time, API Gateway answers `{"message":"Service Unavailable"}`',
  },
};

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
      401,
    );
    errors['403'] = problem(`FORBIDDEN: the token has none of the roles ${route.auth.join(', ')}`, 403);
    errors['429'] = problem(quotaRefusal(route), 429);
  }
  if (route.body || route.rawBody) errors['413'] = problem('PAYLOAD_TOO_LARGE: the body is over 256 KiB', 413);
  if (route.body) errors['415'] = problem('UNSUPPORTED_MEDIA_TYPE: the body is not application/json', 415);
  const invalid = [
    (route.body || route.rawBodySchema) && 'the body',
    route.query && '#/query/…',
    route.params && '#/path/…',
    route.idempotent && '#/header/idempotency-key',
  ].filter(Boolean);
  if (invalid.length > 0) {
    errors['400'] = problem(
      `VALIDATION_FAILED: errors[] points into ${invalid.join(', ')}${route.body || route.rawBodySchema ? '; MALFORMED_JSON' : ''}`,
      400,
    );
  }
  errors['500'] = problem('INTERNAL: an unexpected failure; the body names only the code and the request id', 500);
  // No 431: a header section over the HTTP front's limit is refused by its HTTP parser before any route is known
  // (Node's, locally: 431 and no body; API Gateway's on AWS, which documents the limit, not the answer). It is not an
  // answer of an operation, and a content-less error status would make generated clients type every error as unknown
  // (CONTRACT §19). docs/deployment.md, Errors produced by API Gateway itself.
  return errors;
}

/** Every authenticated route counts against its organisation's quotas (CONTRACT §18). */
const quotaRefusal = (route: RouteDef) =>
  `RATE_LIMITED (Retry-After, retryAfterSeconds): ORG_REQUEST_RATE_LIMIT per organisation, 1200/60 by default${
    route.callsNetwork ? '; this route calls Meta and also counts against NETWORK_CALL_RATE_LIMIT, 120/60' : ''
  }`;

function operation(route: RouteDef) {
  const parameters = operationParameters(route);
  const examples = OPERATION_EXAMPLES[route.operationId];
  const responses = operationResponses(route, examples);
  const body = route.body ?? route.rawBodySchema;
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    ...(route.auth === 'public'
      ? { security: [] }
      : { description: `Roles: ${route.auth.join(', ')}`, security: [{ bearer: [] }] }),
    parameters,
    ...(body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: convert(body),
                ...(examples?.request !== undefined ? { example: examples.request } : {}),
              },
            },
          },
        }
      : {}),
    responses,
  };
}

/** The operation's path, query and header parameters. */
function operationParameters(route: RouteDef) {
  const params = route.params
    ? (convert(route.params) as { properties?: Record<string, Record<string, unknown>> }).properties
    : undefined;
  const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name = '']) => ({
    name,
    in: 'path',
    required: true,
    ...(name === route.orgParam ? { description: "The token's organisation" } : {}),
    schema: params?.[name] ?? { type: 'string' },
    ...(PATH_PARAMETER_EXAMPLES[name] ? { example: PATH_PARAMETER_EXAMPLES[name] } : {}),
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
    schema:
      header.name === 'Idempotency-Key' ? { type: 'string', pattern: '^[\\x20-\\x7E]{1,255}$' } : { type: 'string' },
  }));
  return [...pathParams, ...queryParams, ...headerParams];
}

/**
 * The operation's answers: its declared ones (with their examples), the errors every route of its shape may give,
 * the quota refusal's terms, and API Gateway's own answers (GATEWAY_ANSWERS) beside the service's.
 */
function operationResponses(route: RouteDef, examples: (typeof OPERATION_EXAMPLES)[string] | undefined) {
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(route.responses)) {
    const code = Number(status);
    if (code >= 400) {
      responses[status] = problem(response.description, code, response.headers);
      continue;
    }
    const contentType = response.contentType ?? 'application/json';
    const schema = response.schema
      ? convert(RESPONSE_SCHEMAS[response.schema])
      : response.contentType?.startsWith('text/')
        ? { type: 'string' }
        : undefined;
    const example = examples?.responses[code];
    responses[status] = {
      description: response.description,
      headers: responseHeaders([
        'X-Request-Id',
        ...(response.headers ?? []),
        ...(route.idempotent ? (['Idempotent-Replayed'] as const) : []),
      ]),
      ...(schema ? { content: { [contentType]: { schema, ...(example !== undefined ? { example } : {}) } } } : {}),
    };
  }
  for (const [status, error] of Object.entries(shapeErrors(route))) responses[status] ??= error;
  if (route.auth !== 'public' && route.responses[429]) {
    const own = responses['429'] as { description: string };
    own.description = `${own.description}; ${quotaRefusal(route)}`;
  }
  addGatewayAnswers(responses);
  return responses;
}

/** API Gateway's own answers, merged into the service's answer of the same status where there is one. */
function addGatewayAnswers(responses: Record<string, unknown>): void {
  for (const [status, answer] of Object.entries(GATEWAY_ANSWERS)) {
    if (status === '413' && !responses['413']) continue;
    const own = responses[status] as
      | { description: string; headers?: Record<string, object>; content?: Record<string, unknown> }
      | undefined;
    responses[status] = {
      description: own ? `${own.description}. ${answer.description}` : answer.description,
      // API Gateway's own answer carries none of the service's headers; the service's problem carries them.
      ...(own?.headers
        ? {
            headers: Object.fromEntries(
              Object.entries(own.headers).map(([name, header]) => [name, { ...header, required: false }]),
            ),
          }
        : {}),
      content: {
        ...own?.content,
        'application/json': {
          schema: { $ref: '#/components/schemas/GatewayError' },
          example: { message: answer.message },
        },
      },
    };
  }
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
          requestBody: {
            required: true,
            content: { 'application/json': { schema: convert(EVENT_BODIES[type]), example: EVENT_EXAMPLES[type] } },
          },
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
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
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
          example: { message: 'Too Many Requests' },
          description: 'An error API Gateway produces itself (throttling), before the service sees the request',
        },
      },
    },
    security: [{ bearer: [] }],
    paths,
    webhooks: webhookOperations(),
  };
}

/**
 * The document for Stoplight Prism 5 (`npm run openapi:prism`): the same, without `jsonSchemaDialect`. Prism copies
 * that (correct) declaration into every schema as `$schema` and cannot compile it, and then skips every response-body
 * check without a word. OpenAPI 3.1's default dialect is the same base dialect, so the copy means the same.
 */
export function forPrism(document: Record<string, unknown>): Record<string, unknown> {
  const { jsonSchemaDialect: _, ...rest } = document;
  return rest;
}
