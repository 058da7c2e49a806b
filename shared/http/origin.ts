import type { APIGatewayProxyEventV2 } from 'aws-lambda';

const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$/;

/**
 * The origin the caller reached: behind the edge, the edge's own (`edgeOrigin`, config().edgeOrigin: API Gateway
 * sees only the origin domain that CloudFront calls); otherwise the API's domain name (API Gateway's, a custom
 * domain, or the local front's host:port) with the scheme of the connection. API Gateway terminates TLS and says so in
 * `x-forwarded-proto`; the local front speaks plain HTTP and sets none. An implausible host gives `undefined`.
 */
export function requestOrigin(
  event: Pick<APIGatewayProxyEventV2, 'headers' | 'requestContext'>,
  edgeOrigin?: string,
): string | undefined {
  if (edgeOrigin) return edgeOrigin;
  const host = event.requestContext.domainName;
  const scheme = event.headers['x-forwarded-proto'] === 'https' ? 'https' : 'http';
  return HOST.test(host) ? `${scheme}://${host}` : undefined;
}
