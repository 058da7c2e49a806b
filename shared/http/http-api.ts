import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { InferOutput } from 'valibot';
import { actFor, foreignOrgFor, inTenantScope } from '#shared/adapters/aws/tenant-scope';
import type { Principal } from '#shared/domain/auth/roles';
import {
  DomainError,
  ForbiddenError,
  MalformedJsonError,
  OrgMismatchError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '#shared/errors';
import { logger } from '#shared/observability/logger';
import type { RouteDef } from '#shared/routes/route';
import { problemResponse } from './problem.ts';
import type { HttpResult } from './responses.ts';
import { parseOrThrow } from './validation.ts';

export const MAX_BODY_BYTES = 256 * 1024;

type Out<S> = S extends import('valibot').GenericSchema ? InferOutput<S> : undefined;

/** What the middleware adds to the API Gateway event before the handler runs. */
export interface ApiRequest<R extends RouteDef> {
  requestId: string;
  auth: R['auth'] extends 'public' ? Principal | undefined : Principal;
  /**
   * The organisation the request acts on: the token's, equal to the path's where the path names one (only the
   * test-only fault switch makes it another's: shared/adapters/aws/tenant-scope.ts).
   */
  orgId: string;
  payload: Out<R['body']>;
  query: Out<R['query']>;
  params: Out<R['params']>;
  /** The body as text. */
  rawBody: string;
  /** The exact body bytes (signed webhooks are verified over these). */
  rawBodyBytes: Buffer;
  /** The validated Idempotency-Key header, on routes that take one. */
  idempotencyKey: string | undefined;
}

export type ApiEvent<R extends RouteDef> = APIGatewayProxyEventV2 & ApiRequest<R>;

/** Turns the Authorization header into the caller's principal, or throws UnauthorizedError. */
export type Authenticate = (authorization: string | undefined) => Promise<Principal>;

const JSON_MEDIA_TYPE = /^application\/json\s*(;.*)?$/i;

/**
 * The one ordered list of checks for every HTTP function (CONTRACT §1): authentication (401) → organisation (401)
 * → role (403) → media type, size and body/query (415 / 413 / 400). Its onError turns anything thrown later into
 * a problem document, and every response gets `X-Request-Id`.
 */
export function httpApi<R extends RouteDef>(
  route: R,
  authenticate?: Authenticate,
): MiddlewareObj<ApiEvent<R>, HttpResult> {
  if (route.auth !== 'public' && !authenticate) throw new Error(`${route.operationId} needs an authenticator`);
  return {
    before: async (request) => {
      const event = request.event;
      event.requestId = event.requestContext?.requestId ?? request.context.awsRequestId;
      logger.setCorrelationId(event.requestId);
      const headers = event.headers ?? {};

      if (route.auth !== 'public') {
        const auth = await authenticate!(headers.authorization);
        // From here every AWS call is made with the organisation's own credentials (CONTRACT §25).
        actFor(auth.orgId);
        if (route.orgParam && event.pathParameters?.[route.orgParam] !== auth.orgId) throw new OrgMismatchError();
        // The organisation the handler acts on: the path's (proven equal) or, without one in the path, the token's.
        event.orgId = foreignOrgFor(auth.orgId);
        if (!auth.roles.some((role) => route.auth.includes(role))) throw new ForbiddenError();
        // A read-only console session changes nothing, whatever its roles allow (CONTRACT §24).
        if (auth.access === 'read' && route.method !== 'GET') throw new ForbiddenError();
        event.auth = auth;
        logger.appendKeys({ orgId: auth.orgId, clientId: auth.clientId });
      }

      event.rawBodyBytes = readBody(event);
      event.rawBody = event.rawBodyBytes.toString('utf8');
      if (route.body || route.rawBody) {
        if (event.rawBodyBytes.length > MAX_BODY_BYTES) throw new PayloadTooLargeError(MAX_BODY_BYTES);
      }
      if (route.body) {
        const contentType = headers['content-type'];
        if (event.rawBody.length === 0 && contentType === undefined) {
          throw new ValidationError([{ pointer: '', message: 'a JSON body is required' }]);
        }
        if (!contentType || !JSON_MEDIA_TYPE.test(contentType)) throw new UnsupportedMediaTypeError();
        let parsed: unknown;
        try {
          parsed = JSON.parse(event.rawBody);
        } catch {
          throw new MalformedJsonError();
        }
        // Every body is a JSON object, and valibot's object schemas take an array for one (an array is an object
        // to JavaScript): `[]` would pass any body whose properties are all optional.
        if (Array.isArray(parsed)) throw new ValidationError([{ pointer: '', message: 'must be a JSON object' }]);
        event.payload = parseOrThrow(route.body, parsed, '') as Out<R['body']>;
      }
      if (route.idempotent) event.idempotencyKey = idempotencyKey(headers['idempotency-key']);
      if (route.query) {
        event.query = parseOrThrow(route.query, event.queryStringParameters ?? {}, '#/query') as Out<R['query']>;
      }
      if (route.params) {
        const { [route.orgParam ?? '']: _org, ...rest } = event.pathParameters ?? {};
        event.params = parseOrThrow(route.params, rest, '#/path') as Out<R['params']>;
      }
    },
    after: async (request) => {
      if (request.response) {
        request.response.headers = { ...request.response.headers, 'x-request-id': request.event.requestId };
      }
    },
    onError: async (request) => {
      const requestId = request.event.requestId ?? request.event.requestContext?.requestId ?? 'unknown';
      if (request.error instanceof DomainError) {
        logger.info('request refused', { code: request.error.code });
      } else {
        logger.error('unhandled error', { error: request.error as Error });
      }
      request.response = problemResponse(request.error, requestId);
    },
  };
}

function readBody(event: APIGatewayProxyEventV2): Buffer {
  if (!event.body) return Buffer.alloc(0);
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}

const IDEMPOTENCY_KEY = /^[\x20-\x7E]{1,255}$/;

function idempotencyKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(value)) {
    throw new ValidationError([
      { pointer: '#/header/idempotency-key', message: 'must be 1–255 printable ASCII characters' },
    ]);
  }
  return value;
}

/** Starts an HTTP function for `route`: Powertools context first, then the route's checks. */
export function httpFunction<R extends RouteDef>(route: R, authenticate?: Authenticate) {
  const fn = middy<APIGatewayProxyEventV2, HttpResult>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(httpApi(route, authenticate));
  // Each invocation runs in a scope of its own, whose organisation httpApi sets once the token proves it.
  const setHandler = fn.handler;
  const scoped = ((...args: Parameters<typeof fn>) => inTenantScope(() => fn(...args))) as typeof fn;
  fn.handler = ((...args: Parameters<typeof setHandler>) => {
    setHandler(...args);
    return Object.assign(scoped, fn);
  }) as typeof setHandler;
  return fn;
}
