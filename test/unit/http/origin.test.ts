import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { requestOrigin } from '#shared/http/origin';

const event = (domainName: string, headers: Record<string, string> = {}) =>
  ({ headers, requestContext: { domainName } }) as unknown as APIGatewayProxyEventV2;

describe('requestOrigin', () => {
  it('is https on API Gateway, which terminates TLS and says so in x-forwarded-proto', () => {
    expect(requestOrigin(event('abc123.execute-api.eu-west-1.amazonaws.com', { 'x-forwarded-proto': 'https' }))).toBe(
      'https://abc123.execute-api.eu-west-1.amazonaws.com',
    );
  });

  it('is plain http with the port behind the local front, which forwards nothing', () => {
    expect(requestOrigin(event('127.0.0.1:3000'))).toBe('http://127.0.0.1:3000');
  });

  it.each(['evil.test/path', 'a b', '', 'host:port'])('refuses the implausible host %j', (host) => {
    expect(requestOrigin(event(host))).toBeUndefined();
  });
});
