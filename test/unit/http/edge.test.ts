import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { callerAddress } from '#shared/http/edge';
import { requestOrigin } from '#shared/http/origin';

const EDGE = 'https://api.example.com';

const event = (headers: Record<string, string>, sourceIp = '130.176.0.10') =>
  ({
    headers,
    requestContext: { domainName: 'origin.api.example.com', http: { sourceIp } },
  }) as unknown as Pick<APIGatewayProxyEventV2, 'headers' | 'requestContext'>;

describe('callerAddress', () => {
  it("is API Gateway's sourceIp without the edge, whatever the headers claim", () => {
    const spoofed = event({ 'cloudfront-viewer-address': '198.51.100.10:46532', 'x-forwarded-for': '203.0.113.9' });

    expect(callerAddress(spoofed, undefined)).toBe('130.176.0.10');
  });

  it("is the viewer's IPv4 address from CloudFront's header behind the edge, without the port", () => {
    expect(callerAddress(event({ 'cloudfront-viewer-address': '198.51.100.10:46532' }), EDGE)).toBe('198.51.100.10');
  });

  it("is the viewer's IPv6 address, lower-cased, without the port", () => {
    const viewer = event({ 'cloudfront-viewer-address': '2001:DB8:85A3::8A2E:370:7334:443' });

    expect(callerAddress(viewer, EDGE)).toBe('2001:db8:85a3::8a2e:370:7334');
  });

  it('never reads X-Forwarded-For, and falls back to the connection when the viewer header is missing or malformed', () => {
    expect(callerAddress(event({ 'x-forwarded-for': '203.0.113.9' }), EDGE)).toBe('130.176.0.10');
    expect(callerAddress(event({ 'cloudfront-viewer-address': 'evil, 203.0.113.9:1' }), EDGE)).toBe('130.176.0.10');
  });
});

describe('requestOrigin behind the edge', () => {
  it("is the edge's origin, not the origin domain API Gateway saw", () => {
    expect(requestOrigin(event({ 'x-forwarded-proto': 'https' }), EDGE)).toBe(EDGE);
  });

  it('is the domain API Gateway saw without the edge', () => {
    expect(requestOrigin(event({ 'x-forwarded-proto': 'https' }))).toBe('https://origin.api.example.com');
  });
});
