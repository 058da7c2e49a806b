import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { PayloadTooLargeError } from '#shared/errors';
import { notFoundRoute } from '#shared/http/fallback';
import { problemResponse } from '#shared/http/problem';
import { matchRoute } from '#shared/routes/match';
import { routeKey } from '#shared/routes/route';
import { GATEWAY_MAX_BODY_BYTES, readBody, send, toEvent } from './api-gateway-event.ts';
import { invoke } from './lambda.ts';

/** API Gateway's integration timeout. */
const INTEGRATION_TIMEOUT_MS = 29_000;

/**
 * The local stand-in for API Gateway (HTTP API, payload format 2.0): it matches the route table, builds the v2
 * event and invokes the route's handler module; unmatched requests go to the `$default` function's logic.
 */
export class HttpFront {
  #server: Server;
  #handling = new Set<Promise<void>>();

  constructor() {
    this.#server = createServer((request, response) => {
      const handling = this.#handle(request, response).catch(() => {
        if (!response.headersSent) response.writeHead(500);
        response.end();
      });
      this.#handling.add(handling);
      void handling.finally(() => this.#handling.delete(handling));
    });
    this.#server.keepAliveTimeout = 5_000;
  }

  async listen(port: number): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, '127.0.0.1', resolve);
    });
    return (this.#server.address() as AddressInfo).port;
  }

  /** Stops accepting connections, lets the requests being handled finish, then closes every connection. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    while (this.#handling.size > 0) await Promise.allSettled([...this.#handling]);
    this.#server.closeAllConnections();
    await closed;
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
