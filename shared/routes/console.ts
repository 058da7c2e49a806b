import { ADMINS, ADMINS_AND_BOTS } from '#shared/domain/auth/roles';
import { ConsoleLinkRequest, ConsoleSessionRequest, EmptyBody } from '#shared/schemas/console';
import { defineRoute } from './route.ts';

/** The organisation's console (CONTRACT §24): its links, its sessions, its one aggregate read and its pages. */

export const createConsoleLink = /* @__PURE__ */ defineRoute({
  operationId: 'createConsoleLink',
  method: 'POST',
  path: '/console-links/{orgId}',
  fn: 'create-console-link',
  summary: "A one-time sign-in link to the organisation's console",
  tag: 'console',
  auth: ADMINS,
  orgParam: 'orgId',
  body: ConsoleLinkRequest,
  responses: {
    201: {
      description:
        "The link: its code (in the URL's fragment) opens one session within 10 minutes. A `manage` session holds " +
        "the caller's ACCOUNT_OWNER / CRM_ADMIN roles, a `read` session the caller's roles and may only read; " +
        "revoking the caller's credential ends the session",
      schema: 'ConsoleLink',
      headers: ['Cache-Control'],
    },
  },
});

export const startConsoleSession = /* @__PURE__ */ defineRoute({
  operationId: 'startConsoleSession',
  method: 'POST',
  path: '/console-sessions',
  fn: 'start-console-session',
  summary: "Spend a console link's code: a session cookie and a first access token",
  tag: 'console',
  auth: 'public',
  body: ConsoleSessionRequest,
  responses: {
    201: {
      description:
        'Signed in: an HttpOnly, SameSite=Strict session cookie scoped to /api/wp-crm/console-sessions (Secure but on ' +
        'loopback), and an access token of the session to keep in memory only',
      schema: 'ConsoleSessionToken',
      headers: ['Cache-Control', 'Set-Cookie'],
    },
    401: {
      description:
        'UNAUTHORIZED with `reason`: `used` (the code was spent already), `expired` (older than 10 minutes) or ' +
        '`unknown`; also when the credential that asked for the link was revoked or the organisation deleted',
    },
    403: { description: 'ORG_SUSPENDED: the organisation is suspended' },
  },
});

export const refreshConsoleSession = /* @__PURE__ */ defineRoute({
  operationId: 'refreshConsoleSession',
  method: 'POST',
  path: '/console-sessions/refresh',
  fn: 'refresh-console-session',
  summary: "A new access token for the session cookie's session",
  tag: 'console',
  auth: 'public',
  body: EmptyBody,
  responses: {
    200: {
      description: 'A fresh access token of the session (the page asks on load and before the last one expires)',
      schema: 'ConsoleSessionToken',
      headers: ['Cache-Control'],
    },
    401: {
      description:
        'UNAUTHORIZED with `reason`: `signed-out` (no session cookie, or its session was signed out) or `expired`; ' +
        "also when the session's credential was revoked or its organisation deleted",
    },
    403: { description: 'ORG_SUSPENDED: the organisation is suspended' },
  },
});

export const endConsoleSession = /* @__PURE__ */ defineRoute({
  operationId: 'endConsoleSession',
  method: 'POST',
  path: '/console-sessions/sign-out',
  fn: 'end-console-session',
  summary: "Sign out: end the session cookie's session",
  tag: 'console',
  auth: 'public',
  body: EmptyBody,
  responses: {
    200: {
      description:
        "Signed out (also when there was no session): the cookie is cleared and the session's tokens are refused " +
        'from now on (within a minute on warm functions)',
      schema: 'ConsoleSignedOut',
      headers: ['Cache-Control', 'Set-Cookie'],
    },
  },
});

export const getConsoleOverview = /* @__PURE__ */ defineRoute({
  operationId: 'getConsoleOverview',
  method: 'GET',
  path: '/console-overview/{orgId}',
  fn: 'get-console-overview',
  summary: "The console's Overview chart: the last 24 hours per hour, and the latest events",
  tag: 'console',
  auth: ADMINS_AND_BOTS,
  orgParam: 'orgId',
  responses: {
    200: {
      description:
        'Per hour of the last 24: deliveries by outcome (from the delivery records, by creation time), groups created ' +
        "and failed, reports completed and failed (from the events feed, by the event's time); and the 10 latest events",
      schema: 'ConsoleOverview',
    },
  },
});

const PAGE_HEADERS = ['Cache-Control (cacheable)', 'Content-Security-Policy'] as const;

export const getConsole = /* @__PURE__ */ defineRoute({
  operationId: 'getConsole',
  method: 'GET',
  path: '/console',
  fn: 'get-console',
  summary: "The organisation's console (its Overview page)",
  tag: 'console',
  auth: 'public',
  responses: {
    200: {
      description: 'The console page; it signs in with the code in the fragment, or with its session cookie',
      contentType: 'text/html',
      headers: PAGE_HEADERS,
    },
  },
});

export const getConsoleScript = /* @__PURE__ */ defineRoute({
  operationId: 'getConsoleScript',
  method: 'GET',
  path: '/console/scripts/{asset}',
  fn: 'get-console',
  summary: "The console's script",
  tag: 'console',
  auth: 'public',
  responses: {
    200: {
      description: 'JavaScript, gzip-encoded when accepted; named by its content, immutable',
      contentType: 'text/javascript',
      headers: ['Cache-Control (cacheable)'],
    },
    404: { description: 'ROUTE_NOT_FOUND: no such script (names change with every build)' },
  },
});

export const getConsoleStyles = /* @__PURE__ */ defineRoute({
  operationId: 'getConsoleStyles',
  method: 'GET',
  path: '/console/styles/{asset}',
  fn: 'get-console',
  summary: "The console's style sheet",
  tag: 'console',
  auth: 'public',
  responses: {
    200: {
      description: 'CSS, gzip-encoded when accepted; named by its content, immutable',
      contentType: 'text/css',
      headers: ['Cache-Control (cacheable)'],
    },
    404: { description: 'ROUTE_NOT_FOUND: no such style sheet (names change with every build)' },
  },
});

export const getConsolePage = /* @__PURE__ */ defineRoute({
  operationId: 'getConsolePage',
  method: 'GET',
  path: '/console/{page}',
  fn: 'get-console',
  summary: 'A page of the console (the same document: the page draws itself from its address)',
  tag: 'console',
  auth: 'public',
  responses: {
    200: { description: 'The console page', contentType: 'text/html', headers: PAGE_HEADERS },
    404: { description: 'ROUTE_NOT_FOUND: the console has no such page' },
  },
});

export const getConsolePageItem = /* @__PURE__ */ defineRoute({
  operationId: 'getConsolePageItem',
  method: 'GET',
  path: '/console/{page}/{id}',
  fn: 'get-console',
  summary: "A group's or an endpoint's page of the console",
  tag: 'console',
  auth: 'public',
  responses: {
    200: { description: 'The console page', contentType: 'text/html', headers: PAGE_HEADERS },
    404: { description: 'ROUTE_NOT_FOUND: the console has no such page' },
  },
});
