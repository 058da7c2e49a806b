import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export type HttpResult = APIGatewayProxyStructuredResultV2;

export const json = (statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResult => ({
  statusCode,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/** For every response that carries a secret, a token or a URL that works as one (CONTRACT §13). */
export const NO_STORE = { 'cache-control': 'no-store' } as const;

export const ok = (body: unknown, headers?: Record<string, string>) => json(200, body, headers);
export const created = (body: unknown, location: string, headers: Record<string, string> = {}) =>
  json(201, body, { location, ...headers });
export const accepted = (body: unknown, location?: string) => json(202, body, location ? { location } : {});
export const noContent = (): HttpResult => ({ statusCode: 204, headers: {} });
export const seeOther = (location: string, headers: Record<string, string> = {}): HttpResult => ({
  statusCode: 303,
  headers: { location, ...headers },
});
