import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { BASE_PATH } from '#shared/routes/route';
import { requestOrigin } from './origin.ts';
import type { HttpResult } from './responses.ts';

/** The console's session cookie (CONTRACT §24): sent only to the session routes, never readable by a script. */
export const CONSOLE_COOKIE = 'wpcrm_console';
export const CONSOLE_COOKIE_PATH = `${BASE_PATH}/console-sessions`;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/**
 * The cookie's value in a request. API Gateway (payload 2.0) moves the `Cookie` header into `cookies`; the local
 * fronts keep the header: both are read.
 */
export function readConsoleCookie(event: Pick<APIGatewayProxyEventV2, 'cookies' | 'headers'>): string | undefined {
  const pairs = event.cookies ?? (event.headers?.cookie ?? '').split(';');
  for (const pair of pairs) {
    const [name, ...value] = pair.trim().split('=');
    if (name === CONSOLE_COOKIE) return value.join('=');
  }
  return undefined;
}

/**
 * `Set-Cookie` for the session: HttpOnly, SameSite=Strict, path-scoped to the session routes, and Secure unless the
 * caller reached the service on a loopback address over plain HTTP (the local stack; browsers drop a Secure cookie
 * set over http). `maxAgeSeconds` 0 clears it.
 */
export function consoleCookie(
  event: Pick<APIGatewayProxyEventV2, 'headers' | 'requestContext'>,
  edgeOrigin: string | undefined,
  value: string,
  maxAgeSeconds: number,
): string {
  const origin = requestOrigin(event, edgeOrigin);
  const url = origin ? new URL(origin) : undefined;
  const loopback = url !== undefined && url.protocol === 'http:' && LOOPBACK.has(url.hostname);
  return [
    `${CONSOLE_COOKIE}=${value}`,
    `Path=${CONSOLE_COOKIE_PATH}`,
    `Max-Age=${maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(loopback ? [] : ['Secure']),
  ].join('; ');
}

/** The response with the cookie set (API Gateway's payload 2.0 `cookies`; the local fronts write them as headers). */
export const withCookie = (result: HttpResult, cookie: string): HttpResult => ({ ...result, cookies: [cookie] });

/**
 * Where a link points (CONTRACT §24: `…/console/#code=…`). A request for it is answered with a redirect to the page's
 * own address, `/console` (shared/http/fallback.ts); the browser keeps the fragment.
 */
export const CONSOLE_LINK_PATH = `${BASE_PATH}/console/`;

/** The console's address as the caller reached the service: what a link points at. */
export function consoleAddress(
  event: Pick<APIGatewayProxyEventV2, 'headers' | 'requestContext'>,
  edgeOrigin: string | undefined,
): string {
  return `${requestOrigin(event, edgeOrigin) ?? ''}${CONSOLE_LINK_PATH}`;
}

/** The console's address below an API URL given with or without its base path (`https://…`, `https://…/api/wp-crm`). */
export function consoleAddressOf(apiUrl: string): string {
  const base = apiUrl.replace(/\/+$/, '');
  return `${base.endsWith(BASE_PATH) ? base.slice(0, -BASE_PATH.length) : base}${CONSOLE_LINK_PATH}`;
}
