import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { logger } from '#shared/observability/logger';

/** The header CloudFront adds with the viewer's address and source port (`198.51.100.10:46532`, `2001:db8::7:46532`). */
export const VIEWER_ADDRESS_HEADER = 'cloudfront-viewer-address';

const VIEWER_ADDRESS = /^(\d{1,3}(?:\.\d{1,3}){3}|[0-9a-f:]+):\d{1,5}$/i;

/**
 * The address of whoever called (CONTRACT §18: the connection's, never `X-Forwarded-For`). Without the edge that is
 * API Gateway's `sourceIp`. Behind the edge API Gateway sees CloudFront's address; the viewer's comes in the header
 * CloudFront itself sets, and it can be trusted because the API answers only CloudFront's client certificate
 * (infra/aws/edge.ts). `edgeOrigin` is config().edgeOrigin.
 */
export function callerAddress(
  event: Pick<APIGatewayProxyEventV2, 'headers' | 'requestContext'>,
  edgeOrigin: string | undefined,
): string {
  const sourceIp = event.requestContext.http.sourceIp;
  if (!edgeOrigin) return sourceIp;
  const viewer = VIEWER_ADDRESS.exec(event.headers[VIEWER_ADDRESS_HEADER] ?? '');
  if (viewer) return viewer[1]!.toLowerCase();
  logger.warn('edge: no CloudFront viewer address on the request; counting it under the connection address', {
    sourceIp,
  });
  return sourceIp;
}
