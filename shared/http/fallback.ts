import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { MethodNotAllowedError, RouteNotFoundError } from '#shared/errors';
import { matchRoute } from '#shared/routes/match';
import { isConsolePage } from '#shared/schemas/console';
import { problemResponse } from './problem.ts';
import type { HttpResult } from './responses.ts';

/** The answer for a request that matched no route: 405 when the path exists with another method, else 404. */
export async function notFoundRoute(event: APIGatewayProxyEventV2): Promise<HttpResult> {
  const method = event.requestContext.http.method;
  const path = event.rawPath;
  const page = method === 'GET' ? consolePageWithoutSlash(path) : undefined;
  if (page !== undefined) return redirectTo(page, event.rawQueryString, event.requestContext.requestId);
  const match = matchRoute(method, path);
  const error =
    match.kind === 'method-not-allowed'
      ? new MethodNotAllowedError(method, match.allow)
      : new RouteNotFoundError(method, path);
  return problemResponse(error, event.requestContext.requestId);
}

/** The console's page routes (not its scripts and style sheets). */
const PAGE_OPERATIONS = new Set(['getConsole', 'getConsolePage', 'getConsolePageItem']);

/**
 * A console page's address written with a trailing slash — the link's own `…/console/#code=…` (CONTRACT §24) among
 * them — as the page's address without it. An HTTP API route key cannot end with `/`, and a path that matches no
 * route arrives here, at `$default` (docs/architecture.md, The console).
 */
function consolePageWithoutSlash(path: string): string | undefined {
  if (!path.endsWith('/')) return undefined;
  const bare = path.replace(/\/+$/, '');
  const match = matchRoute('GET', bare);
  if (match.kind !== 'route' || !PAGE_OPERATIONS.has(match.route.operationId)) return undefined;
  return isConsolePage(match.params.page, match.params.id) ? bare : undefined;
}

/**
 * 302 to the page's own address on this origin (a path, so it holds behind the edge too). A browser keeps the
 * fragment across a redirect whose `Location` has none (RFC 9110 §10.2.2), so the link's code reaches the page.
 */
function redirectTo(path: string, query: string | undefined, requestId: string): HttpResult {
  return {
    statusCode: 302,
    headers: { location: query ? `${path}?${query}` : path, 'cache-control': 'no-store', 'x-request-id': requestId },
  };
}
