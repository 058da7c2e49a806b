import { ANY_ROLE } from '#shared/domain/auth/roles';
import { TokenRequest } from '#shared/schemas/auth';
import { ListQuery } from '#shared/schemas/common';
import { defineRoute } from './route.ts';

export const issueToken = /* @__PURE__ */ defineRoute({
  operationId: 'issueToken',
  method: 'POST',
  path: '/token',
  fn: 'issue-token',
  summary: 'Exchange client credentials for an access token',
  tag: 'auth',
  auth: 'public',
  body: TokenRequest,
  responses: {
    200: {
      description: 'An ES256 access token bound to one organisation',
      schema: 'TokenResponse',
      headers: ['Cache-Control'],
    },
    401: { description: 'INVALID_CLIENT: unknown client or wrong secret (the same answer for both)' },
    403: { description: 'ORG_SUSPENDED: the credential is valid but its organisation is suspended by the operator' },
    429: {
      description:
        'TOO_MANY_ATTEMPTS (Retry-After): within 15 minutes, 10 failures for this client id from this address, 100 for this client id, or 100 from this address',
    },
  },
});

export const getJwks = /* @__PURE__ */ defineRoute({
  operationId: 'getJwks',
  method: 'GET',
  path: '/.well-known/jwks.json',
  fn: 'get-jwks',
  summary: 'Public keys that verify access tokens',
  tag: 'auth',
  auth: 'public',
  responses: {
    200: {
      description: 'JSON Web Key Set (several keys during a rotation); cacheable for 5 minutes',
      schema: 'Jwks',
      headers: ['Cache-Control (cacheable)'],
    },
  },
});

export const getHealth = /* @__PURE__ */ defineRoute({
  operationId: 'getHealth',
  method: 'GET',
  path: '/health',
  fn: 'get-health',
  summary: 'Liveness',
  tag: 'ops',
  auth: 'public',
  responses: { 200: { description: 'The service answers', schema: 'Health' } },
});

export const getOpenApi = /* @__PURE__ */ defineRoute({
  operationId: 'getOpenApi',
  method: 'GET',
  path: '/openapi.json',
  fn: 'get-openapi',
  summary: 'This API as an OpenAPI 3.1 document',
  tag: 'ops',
  auth: 'public',
  responses: { 200: { description: 'OpenAPI 3.1 document', schema: 'OpenApiDocument' } },
});

export const getDocs = /* @__PURE__ */ defineRoute({
  operationId: 'getDocs',
  method: 'GET',
  path: '/docs',
  fn: 'get-docs',
  summary: 'This API reference as an HTML page',
  tag: 'ops',
  auth: 'public',
  responses: {
    200: {
      description: 'The reference, rendered in the browser from openapi.json by a script the service serves itself',
      contentType: 'text/html',
      headers: ['Cache-Control (cacheable)'],
    },
  },
});

/** Served by the page's function: the renderer's script, named by its content hash so it can be cached for good. */
export const getDocsAsset = /* @__PURE__ */ defineRoute({
  operationId: 'getDocsAsset',
  method: 'GET',
  path: '/docs/{asset}',
  fn: 'get-docs',
  summary: "The API reference page's script",
  tag: 'ops',
  auth: 'public',
  responses: {
    200: {
      description: 'JavaScript, gzip-encoded when accepted; immutable',
      contentType: 'text/javascript',
      headers: ['Cache-Control (cacheable)'],
    },
    404: { description: 'ROUTE_NOT_FOUND: no such asset (its name changes with the renderer version)' },
  },
});

export const listChannels = /* @__PURE__ */ defineRoute({
  operationId: 'listChannels',
  method: 'GET',
  path: '/channels/{orgId}',
  fn: 'list-channels',
  summary: "List the organisation's channels",
  tag: 'channels',
  auth: ANY_ROLE,
  orgParam: 'orgId',
  query: ListQuery,
  responses: {
    200: { description: 'Channels, oldest first; network credentials are never included', schema: 'ChannelList' },
  },
});
