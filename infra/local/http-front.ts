import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { PayloadTooLargeError } from '#shared/errors';
import { notFoundRoute } from '#shared/http/fallback';
import { problemResponse } from '#shared/http/problem';
import { matchRoute } from '#shared/routes/match';
import { routeKey } from '#shared/routes/route';
import { GATEWAY_MAX_BODY_BYTES, readBody, send, toEvent } from './api-gateway-event.ts';
import { DrainingServer } from './draining-server.ts';
import { invoke } from './lambda.ts';

/** API Gateway's integration timeout. */
const INTEGRATION_TIMEOUT_MS = 29_000;

/**
 * The local stand-in for API Gateway (HTTP API, payload format 2.0): it matches the route table, builds the v2
 * event and invokes the route's handler module; unmatched requests go to the `$default` function's logic.
 */
export class HttpFront {
  readonly #server: DrainingServer;

  constructor() {
    this.#server = new DrainingServer(
      (request, response) => this.#handle(request, response),
      (response) => {
        response.writeHead(500);
        response.end();
      },
    );
  }

  listen(port: number): Promise<number> {
    return this.#server.listen(port);
  }

  /** Stops accepting connections, lets the requests being handled finish, then closes every connection. */
  close(): Promise<void> {
    return this.#server.close();
  }

  async #handle(request: IncomingMessage, response: ServerResponse) {
    const requestId = randomUUID();
    const url = new URL(request.url ?? '/', 'http://localhost');
    const method = request.method ?? 'GET';
    const body = await readBody(request);
    if (body === 'too-large') {
      return send(response, problemResponse(new PayloadTooLargeError(GATEWAY_MAX_BODY_BYTES), requestId));
    }
    const match = matchRoute(method, url.pathname);
    const event = toEvent(
      request,
      url,
      body,
      requestId,
      match.kind === 'route' ? { routeKey: routeKey(match.route), params: match.params } : undefined,
    );
    if (match.kind !== 'route') return send(response, await notFoundRoute(event));
    try {
      const result = await invoke<APIGatewayProxyStructuredResultV2>(match.route.fn, event, INTEGRATION_TIMEOUT_MS);
      send(response, result);
    } catch {
      send(response, problemResponse(new Error('integration failure'), requestId));
    }
  }
}
