import type { GenericSchema } from 'valibot';
import type { Role } from '#shared/domain/auth/roles';

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
  responses: Record<
    number,
    { description: string; schema?: GenericSchema; contentType?: string; headers?: readonly ResponseHeader[] }
  >;
}

/**
 * Response headers a route sets itself, for the OpenAPI document. `X-Request-Id` (every answer), `WWW-Authenticate`
 * (401), `Retry-After` (429, 503) and `Idempotent-Replayed` (idempotent routes) are added by the generator.
 */
export type ResponseHeader = 'Location' | 'Cache-Control' | 'Retry-After';

// Marked free of side effects, so a function's bundle keeps only the routes (and schemas) it imports.
export const defineRoute = /* @__NO_SIDE_EFFECTS__ */ <R extends RouteDef>(route: R): R => route;

export const routeKey = (route: Pick<RouteDef, 'method' | 'path'>) => `${route.method} ${BASE_PATH}${route.path}`;

/** A list route: its query takes a `cursor`, so its function reads the cursor key. */
export const takesCursor = (route: Pick<RouteDef, 'query'>) =>
  Boolean(route.query && 'entries' in route.query && 'cursor' in (route.query.entries as Record<string, unknown>));
