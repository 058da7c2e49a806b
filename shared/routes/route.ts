import type { GenericSchema } from 'valibot';
import type { Role } from '#shared/domain/auth/roles';
import type { ResponseSchemaName } from '#shared/schemas/responses';

export const BASE_PATH = '/api/wp-crm';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * One API route, defined once: the HTTP front of the local stack and the CDK stack route with it, the handler's
 * middleware takes its roles and schemas from it, and the OpenAPI document is generated from it.
 */
export interface RouteDef {
  operationId: string;
  method: HttpMethod;
  /** Path below BASE_PATH in API Gateway syntax, e.g. `/channels/{orgId}`. */
  path: string;
  /** The folder of the Lambda entry point under functions/. */
  fn: string;
  summary: string;
  tag: string;
  /** `public` needs no token; otherwise the roles that may call it. */
  auth: 'public' | readonly Role[];
  /** The path parameter that must equal the token's organisation. */
  orgParam?: 'orgId' | 'organisationId';
  body?: GenericSchema;
  query?: GenericSchema;
  /** Path parameters other than the organisation. */
  params?: GenericSchema;
  /** The route takes an optional Idempotency-Key header (CONTRACT §4). */
  idempotent?: boolean;
  /** The body is handed over as raw text (signed webhooks); no JSON parsing in the middleware. */
  rawBody?: boolean;
  /** The route calls Meta: it also counts against NETWORK_CALL_RATE_LIMIT (CONTRACT §18). */
  callsNetwork?: boolean;
  /** Request headers the route reads, for the OpenAPI document. */
  headers?: { name: string; description: string; required?: boolean }[];
  /** The documented body of a `rawBody` route (the handler reads the raw text, e.g. to check a signature). */
  rawBodySchema?: GenericSchema;
  /**
   * Each answer, its schema by name: the OpenAPI document resolves it (shared/schemas/responses.ts); a function
   * never builds the schemas of its answers.
   */
  responses: Record<
    number,
    { description: string; schema?: ResponseSchemaName; contentType?: string; headers?: readonly ResponseHeader[] }
  >;
}

/**
 * Response headers a route sets itself, for the OpenAPI document. `X-Request-Id` (every answer), `WWW-Authenticate`
 * (401), `Retry-After` (429, 503) and `Idempotent-Replayed` (idempotent routes) are added by the generator.
 */
export type ResponseHeader =
  | 'Location'
  | 'Cache-Control'
  | 'Cache-Control (cacheable)'
  | 'Retry-After'
  | 'Set-Cookie'
  | 'Content-Security-Policy';

/**
 * A route, as written. Every call is marked `/* @__PURE__ *\/` where it is made, so that a function's bundle keeps only
 * the routes (and through them the schemas) it imports: esbuild reads a `@__NO_SIDE_EFFECTS__` mark only on functions
 * of the calling file (evanw/esbuild#4369), and keeps an unmarked top-level call whatever it returns. The arguments
 * must be free of side effects too (no spreads, no calls: shared/schemas/common.ts); a unit test bundles a function
 * and checks (test/unit/routes/tree-shaking.test.ts).
 */
export const defineRoute = <R extends RouteDef>(route: R): R => route;

export const routeKey = (route: Pick<RouteDef, 'method' | 'path'>) => `${route.method} ${BASE_PATH}${route.path}`;

/** A list route: its query takes a `cursor` (or the event feed's `iterator`), so its function reads the cursor key. */
export const takesCursor = (route: Pick<RouteDef, 'query'>) =>
  Boolean(
    route.query &&
      'entries' in route.query &&
      ('cursor' in (route.query.entries as Record<string, unknown>) ||
        'iterator' in (route.query.entries as Record<string, unknown>)),
  );
