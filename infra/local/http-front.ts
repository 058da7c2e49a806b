import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { PayloadTooLargeError } from '#shared/errors';
import { notFoundRoute } from '#shared/http/fallback';
import { problemResponse } from '#shared/http/problem';
import { matchRoute } from '#shared/routes/match';
import { routeKey } from '#shared/routes/route';
import { invoke } from './lambda.ts';

/** API Gateway's own payload limit; the handlers enforce the contract's 256 KiB themselves. */
const GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;
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
    const event = toEvent(request, url, body, requestId, match.kind === 'route' ? match : undefined);
    if (match.kind !== 'route') return send(response, await notFoundRoute(event));
    try {
      const result = await invoke<APIGatewayProxyStructuredResultV2>(match.route.fn, event, INTEGRATION_TIMEOUT_MS);
      send(response, result);
    } catch {
      send(response, problemResponse(new Error('integration failure'), requestId));
    }
  }
}

async function readBody(request: IncomingMessage): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > GATEWAY_MAX_BODY_BYTES) return 'too-large';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function toEvent(
  request: IncomingMessage,
  url: URL,
  body: Buffer,
  requestId: string,
  match: { route: Parameters<typeof routeKey>[0]; params: Record<string, string> } | undefined,
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const text = body.toString('utf8');
  const isText = Buffer.from(text, 'utf8').equals(body);
  const now = new Date();
  const key = match ? routeKey(match.route) : '$default';
  return {
    version: '2.0',
    routeKey: key,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    queryStringParameters: Object.keys(query).length > 0 ? query : undefined,
    pathParameters: match && Object.keys(match.params).length > 0 ? match.params : undefined,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: request.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: key,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: body.length === 0 ? undefined : isText ? text : body.toString('base64'),
    isBase64Encoded: body.length > 0 && !isText,
  };
}

function send(response: ServerResponse, result: APIGatewayProxyStructuredResultV2) {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  const body = result.body === undefined ? '' : result.body;
  const bytes = result.isBase64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
  response.writeHead(result.statusCode ?? 200, headers);
  response.end(bytes);
}
