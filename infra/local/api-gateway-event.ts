import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** API Gateway's own payload limit; the handlers enforce the contract's 256 KiB themselves. */
export const GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;

export async function readBody(request: IncomingMessage): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > GATEWAY_MAX_BODY_BYTES) return 'too-large';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export function toEvent(
  request: IncomingMessage,
  url: URL,
  body: Buffer,
  requestId: string,
  match: { routeKey: string; params: Record<string, string> } | undefined,
  apiId = 'local',
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
  const key = match ? match.routeKey : '$default';
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
      apiId,
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

export function send(response: ServerResponse, result: APIGatewayProxyStructuredResultV2) {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  const body = result.body === undefined ? '' : result.body;
  const bytes = result.isBase64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
  // Payload format 2.0's `cookies`: API Gateway sends each as a Set-Cookie header.
  response.writeHead(
    result.statusCode ?? 200,
    result.cookies?.length ? { ...headers, 'set-cookie': result.cookies } : headers,
  );
  response.end(bytes);
}
