import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { MethodNotAllowedError, RouteNotFoundError } from '#shared/errors';
import { matchRoute } from '#shared/routes/match';
import { problemResponse } from './problem.ts';
import type { HttpResult } from './responses.ts';

/** The answer for a request that matched no route: 405 when the path exists with another method, else 404. */
export async function notFoundRoute(event: APIGatewayProxyEventV2): Promise<HttpResult> {
  const method = event.requestContext.http.method;
  const path = event.rawPath;
  const match = matchRoute(method, path);
  const error =
    match.kind === 'method-not-allowed'
      ? new MethodNotAllowedError(method, match.allow)
      : new RouteNotFoundError(method, path);
  return problemResponse(error, event.requestContext.requestId);
}
