import { describe, expect, it } from 'vitest';
import { testDeliveryBody } from '#shared/domain/webhooks/test-delivery';
import { EVENT_TYPES } from '#shared/events/catalog';
import { forPrism, openApiDocument } from '#shared/openapi/document';
import { ROUTES } from '#shared/routes/index';
import { BASE_PATH } from '#shared/routes/route';
import { OpenApiValidator } from '#test/support/openapi-validator';

type Json = Record<string, unknown>;
interface MediaType {
  schema: Json;
  example?: unknown;
}
interface Response {
  headers?: Record<string, { required: boolean; schema: Json }>;
  content?: Record<string, MediaType>;
}
interface Operation {
  operationId: string;
  parameters: { name: string; in: string; schema: Json; example?: unknown }[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, Response>;
}

const document = openApiDocument() as Json & {
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: Operation }>;
};
const validator = new OpenApiValidator(document);
const operations = Object.values(document.paths).flatMap((item) => Object.values(item));
const operation = (operationId: string) => operations.find((candidate) => candidate.operationId === operationId)!;
const json = (response: Response | undefined) => response?.content?.['application/json'];

describe('openapi.json is complete (CONTRACT §19)', () => {
  it('declares the JSON Schema dialect', () => {
    expect(document.jsonSchemaDialect).toBe('https://spec.openapis.org/oas/3.1/dialect/base');
  });

  it('gives every operation and every event a realistic example that its schema accepts, closed objects included', () => {
    let checked = 0;
    for (const op of [...operations, ...Object.values(document.webhooks).map((item) => item.post)]) {
      for (const media of Object.values(op.requestBody?.content ?? {})) {
        expect(media.example, `${op.operationId} request`).toBeDefined();
        expect(validator.check(media.schema, media.example, document, `${op.operationId} request`)).toEqual([]);
        checked += 1;
      }
      for (const [status, response] of Object.entries(op.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          expect(media.example, `${op.operationId} ${status} ${type}`).toBeDefined();
          expect(validator.check(media.schema, media.example, document, `${op.operationId} ${status}`)).toEqual([]);
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(200);
  });

  it('finds an undeclared property, a wrong type and a missing header in an exchange', () => {
    const answer = {
      method: 'GET',
      url: `${BASE_PATH}/channels/e4c4c399-93bc-4d79-aadf-6968fa1c7bbe?limit=0`,
      requestHeaders: { authorization: 'Bearer x' },
      status: 200,
      responseHeaders: { 'content-type': 'application/json' },
      responseBody: JSON.stringify({ channels: [], nextCursor: 7, secret: 'x' }),
    };
    const verdict = validator.validate(answer);

    expect(verdict.operationId).toBe('listChannels');
    expect(verdict.requestInvalid).toEqual([expect.stringContaining('query limit')]);
    expect(verdict.violations).toEqual(
      expect.arrayContaining([
        'response header X-Request-Id is missing',
        expect.stringContaining('(secret)'),
        expect.stringContaining('body/nextCursor'),
        expect.stringContaining('yet was answered 200'),
      ]),
    );
  });

  it('declares test (optional) on every event, so that a strict validator takes every test delivery (CONTRACT §20)', () => {
    const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': '1764496800', 'webhook-signature': 'v1,x' };
    for (const type of EVENT_TYPES) {
      const body = testDeliveryBody(type, 'org_1', '2026-11-30T10:00:00.000Z');
      const { test: _, ...real } = body;

      expect(body.test, type).toBe(true);
      expect(validator.validateDelivery({ headers, body: JSON.stringify(body) }), type).toEqual([]);
      expect(validator.validateDelivery({ headers, body: JSON.stringify(real) }), type).toEqual([]);
      expect(document.webhooks[type]!.post.requestBody!.content['application/json']!.schema).toMatchObject({
        properties: { test: { type: 'boolean' } },
      });
      expect(
        (document.webhooks[type]!.post.requestBody!.content['application/json']!.schema as { required: string[] })
          .required,
      ).not.toContain('test');
    }
    // The validator is strict: an undeclared property (what test was before it was declared) is a violation.
    const body = { ...testDeliveryBody('report.failed', 'org_1', '2026-11-30T10:00:00.000Z'), tested: true };
    expect(validator.validateDelivery({ headers, body: JSON.stringify(body) })).toEqual([
      'report.failed body must NOT have additional properties (tested)',
    ]);
    expect(validator.validateDelivery({ headers: {}, body: '{"type":"report.sent"}' })).toEqual([
      'the document declares no webhook for type report.sent',
    ]);
  });

  it('declares content for every answer with a body: only 204 and 303 have none, and no error is content-less', () => {
    for (const op of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (status === '204' || status === '303')
          expect(response.content, `${op.operationId} ${status}`).toBeUndefined();
        else expect(response.content, `${op.operationId} ${status}`).toBeDefined();
      }
    }
  });

  it("takes the front's bodiless 431 for the refusal of a header section, outside every operation", () => {
    const exchange = {
      method: 'GET',
      url: `${BASE_PATH}/channels/e4c4c399-93bc-4d79-aadf-6968fa1c7bbe`,
      requestHeaders: { authorization: `Bearer ${'a'.repeat(20_000)}` },
      status: 431,
      responseHeaders: {},
      responseBody: '',
    };

    expect(operations.some((op) => '431' in op.responses)).toBe(false);
    expect(validator.validate(exchange).violations).toEqual([]);
    expect(validator.validate({ ...exchange, responseBody: '{}' }).violations).toEqual([
      '431 (the front refusing the headers) has a body',
    ]);
  });

  it('documents limit as an integer 1–100 on every list', () => {
    const limits = operations.flatMap((op) => op.parameters.filter((parameter) => parameter.name === 'limit'));
    expect(limits.length).toBeGreaterThanOrEqual(6);
    for (const limit of limits)
      expect(limit.schema).toEqual({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
  });

  it('declares X-Request-Id on every answer of the service, WWW-Authenticate on 401 and Retry-After on 429 and 503', () => {
    // 413, 429, 500 and 503 may also come from API Gateway itself, as {"message"} without the service's headers.
    const gateway = new Set(['413', '429', '500', '503']);
    for (const op of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        const where = `${op.operationId} ${status}`;
        if (!gateway.has(status)) expect(response.headers?.['X-Request-Id']?.required, where).toBe(true);
        else {
          expect(Object.keys(response.content ?? {}), where).toContain('application/json');
          expect(response.content!['application/json']!.schema, where).toEqual({
            $ref: '#/components/schemas/GatewayError',
          });
        }
        if (status === '401') expect(response.headers?.['WWW-Authenticate']?.required).toBe(true);
      }
    }
    expect(operation('sendMessage').responses['429']!.headers!['Retry-After']).toBeDefined();
    expect(operation('inviteParticipants').responses['503']!.headers!['Retry-After']).toBeDefined();
    expect(operation('getHealth').responses['500']!.content!['application/problem+json']).toBeDefined();
  });

  it('declares Location and Cache-Control: no-store where the service sends them', () => {
    expect(operation('createGroup').responses['202']!.headers!.Location!.required).toBe(true);
    expect(operation('requestReport').responses['202']!.headers!.Location!.required).toBe(true);
    expect(operation('createWebhook').responses['201']!.headers!.Location!.required).toBe(true);
    expect(operation('downloadReport').responses['303']!.headers!.Location!.required).toBe(true);
    for (const id of [
      'issueToken',
      'getChat',
      'getGroupCreationStatus',
      'getInviteLink',
      'resetInviteLink',
      'rotateWebhookSecret',
    ]) {
      expect(operation(id).responses['200']!.headers!['Cache-Control']).toMatchObject({
        required: true,
        schema: { const: 'no-store' },
      });
    }
  });

  it('declares Cache-Control where it is not no-store, and Retry-After on every 409 that carries it (CONTRACT §19)', () => {
    for (const id of ['getJwks', 'getDocs', 'getDocsAsset']) {
      const header = operation(id).responses['200']!.headers!['Cache-Control'] as { required: boolean; schema: Json };
      expect(header.required).toBe(true);
      expect(header.schema).not.toHaveProperty('const');
    }
    for (const id of ['createGroup', 'requestReport', 'downloadReport']) {
      expect(operation(id).responses['409']!.headers!['Retry-After']).toBeDefined();
    }
  });

  it("declares the service's own bounds on request strings (CONTRACT §19), counted in code points as the checks do", () => {
    const body = (id: string) =>
      (operation(id).requestBody!.content['application/json']!.schema as { properties: Record<string, Json> })
        .properties;
    const subject = new RegExp(body('createGroup').subject!.pattern as string, 'u');
    expect(['a', '  padded  ', `  ${'x'.repeat(128)}  `, '😀'.repeat(128)].every((text) => subject.test(text))).toBe(
      true,
    );
    expect(['', '   ', 'x'.repeat(129), '😀'.repeat(129)].some((text) => subject.test(text))).toBe(false);
    expect(body('updateGroup').subject).toEqual(body('createGroup').subject);
    expect(body('createGroup').description).toMatchObject({ maxLength: 2048 });
    expect(body('sendMessage').text).toMatchObject({ minLength: 1, maxLength: 4096 });
  });

  it("declares the network webhook's body as Meta's open envelope, nothing required (CONTRACT §16: any signed JSON object is 200)", () => {
    const schema = operation('receiveNetworkWebhook').requestBody!.content['application/json']!.schema as Json;
    expect(schema).toMatchObject({ type: 'object', additionalProperties: true });
    expect(Object.keys(schema.properties as Json)).toEqual(['object', 'entry']);
    expect(schema.required ?? []).toEqual([]);
  });

  it('declares every field of a report and a chat, typed', () => {
    // One shape per report type, told apart by its reportType constant, each with that type's filters (CONTRACT
    // §19): a generated client's union narrows filters by reportType. (OpenAPI's discriminator keyword needs named
    // schemas behind $ref; a oneOf of inline shapes with a constant each is what the generators narrow on.)
    const report = json(operation('getReport').responses['200'])!.schema as { oneOf: { properties: Json }[] };
    expect(report.oneOf.map((shape) => (shape.properties.reportType as { const: string }).const)).toEqual([
      'CHAT',
      'CONTACT',
      'TICKET',
      'CALL_LOG',
      'GOAL',
      'BOOKING',
      'FOLLOW_UPS',
      'SURVEY_RESPONSES',
      'FLOW_RESPONSES',
    ]);
    for (const shape of report.oneOf) {
      expect(Object.keys(shape.properties)).toEqual(
        expect.arrayContaining([
          'startedAt',
          'completedAt',
          'rowCount',
          'sizeBytes',
          'truncatedCells',
          'expiresAt',
          'filters',
          'error',
        ]),
      );
      expect(shape.properties.rowCount).toMatchObject({ type: 'integer' });
      expect(shape.properties.truncatedCells).toMatchObject({ type: 'integer', minimum: 0 });
    }
    const chatFilters = report.oneOf[0]!.properties.filters as { properties: Json };
    expect(Object.keys(chatFilters.properties)).toContain('isResolved');
    expect(Object.keys(chatFilters.properties)).not.toContain('goalIds');
    const list = json(operation('listReports').responses['200'])!.schema as Json;
    expect(list).toMatchObject({
      properties: { reports: { items: { oneOf: expect.arrayContaining([expect.anything()]) } } },
    });
    const chat = json(operation('getChat').responses['200'])!.schema as { properties: Json };
    expect(Object.keys(chat.properties)).toEqual(
      expect.arrayContaining(['requireJoinApproval', 'groupStatus', 'participants', 'description', 'labelIds']),
    );
  });

  it('declares the problem extensions and the JWK use', () => {
    const problem = (document.components as { schemas: { Problem: { properties: Json } } }).schemas.Problem;
    expect(Object.keys(problem.properties)).toEqual(
      expect.arrayContaining(['reason', 'reportId', 'retryAfterSeconds', 'networkCode']),
    );
    const jwks = json(operation('getJwks').responses['200'])!.schema as Json;
    expect(jwks).toMatchObject({ properties: { keys: { items: { properties: { use: { const: 'sig' } } } } } });
  });

  it('names an example for every path parameter', () => {
    for (const op of operations) {
      for (const parameter of op.parameters.filter((candidate) => candidate.in === 'path')) {
        expect(parameter.example, `${op.operationId} ${parameter.name}`).toBeDefined();
      }
    }
    expect(Object.keys(document.paths).every((path) => path.startsWith(BASE_PATH))).toBe(true);
    expect(operations).toHaveLength(ROUTES.length);
    expect(Object.keys(document.webhooks)).toHaveLength(EVENT_TYPES.length);
  });

  it('gives Prism the same document without jsonSchemaDialect, which Prism 5 cannot compile (docs/api-guide.md)', () => {
    const prism = forPrism(document);

    expect(document.jsonSchemaDialect).toBe('https://spec.openapis.org/oas/3.1/dialect/base');
    expect(prism).not.toHaveProperty('jsonSchemaDialect');
    expect({ ...prism, jsonSchemaDialect: document.jsonSchemaDialect }).toEqual(document);
  });
});
