import { describe, expect, it } from 'vitest';
import { type ApiRoute, matchRoute } from '#infra/cdk-local/http-api';
import type { FunctionRuntime } from '#infra/cdk-local/lambda-runtime';

const route = (routeKey: string): ApiRoute => {
  const [method, path] = routeKey === '$default' ? ['ANY', undefined] : routeKey.split(' ');
  return { routeKey, method: method!, path, fn: {} as FunctionRuntime, permitted: true, timeoutMs: 1000 };
};

const chosen = (routeKeys: string[], method: string, path: string) =>
  matchRoute(routeKeys.map(route), method, path)?.route.routeKey;

describe('matchRoute', () => {
  it('chooses a literal segment over a path variable', () => {
    const routeKey = chosen(['GET /groups/{orgId}', 'GET /groups/export'], 'GET', '/groups/export');

    expect(routeKey).toBe('GET /groups/export');
  });

  it('chooses a path variable over a greedy path variable', () => {
    const routeKey = chosen(['GET /groups/{proxy+}', 'GET /groups/{orgId}'], 'GET', '/groups/org_1');

    expect(routeKey).toBe('GET /groups/{orgId}');
  });

  it('decides at the first segment that differs, before later ones', () => {
    const routeKey = chosen(['GET /{a}/literal', 'GET /groups/{b}'], 'GET', '/groups/literal');

    expect(routeKey).toBe('GET /groups/{b}');
  });

  it('lets a greedy path variable take every remaining segment', () => {
    const match = matchRoute([route('GET /files/{proxy+}')], 'GET', '/files/a/b/c.txt');

    expect(match).toMatchObject({ route: { routeKey: 'GET /files/{proxy+}' }, params: { proxy: 'a/b/c.txt' } });
  });

  it('chooses a route for the method over ANY on the same path', () => {
    const keys = ['ANY /groups/{orgId}', 'POST /groups/{orgId}'];

    expect(chosen(keys, 'POST', '/groups/org_1')).toBe('POST /groups/{orgId}');
    expect(chosen(keys, 'DELETE', '/groups/org_1')).toBe('ANY /groups/{orgId}');
  });

  it('chooses $default only when no other route matches', () => {
    const keys = ['$default', 'GET /groups/{orgId}'];

    expect(chosen(keys, 'GET', '/groups/org_1')).toBe('GET /groups/{orgId}');
    expect(chosen(keys, 'POST', '/groups/org_1')).toBe('$default');
    expect(chosen(keys, 'GET', '/elsewhere')).toBe('$default');
  });

  it('matches nothing without a $default route when no route matches', () => {
    const match = matchRoute([route('GET /groups/{orgId}')], 'GET', '/channels/org_1');

    expect(match).toBeUndefined();
  });

  it('does not match a path with an extra or a trailing segment', () => {
    const keys = ['GET /groups/{orgId}'];

    expect(chosen(keys, 'GET', '/groups/org_1/extra')).toBeUndefined();
    expect(chosen(keys, 'GET', '/groups/org_1/')).toBeUndefined();
    expect(chosen(keys, 'GET', '/groups')).toBeUndefined();
  });

  it('does not match an empty path variable or an empty greedy variable', () => {
    expect(chosen(['GET /groups/{orgId}'], 'GET', '/groups/')).toBeUndefined();
    expect(chosen(['GET /files/{proxy+}'], 'GET', '/files/')).toBeUndefined();
  });

  it('URL-decodes path parameters', () => {
    const match = matchRoute(
      [route('GET /groups/{orgId}/{name}'), route('GET /files/{proxy+}')],
      'GET',
      '/groups/org%201/caf%C3%A9',
    );
    const greedy = matchRoute([route('GET /files/{proxy+}')], 'GET', '/files/a%2Fb/c%20d');

    expect(match?.params).toEqual({ orgId: 'org 1', name: 'café' });
    expect(greedy?.params).toEqual({ proxy: 'a/b/c d' });
  });

  it('keeps a path parameter that is not valid percent-encoding as it came', () => {
    const match = matchRoute([route('GET /groups/{orgId}')], 'GET', '/groups/100%');

    expect(match?.params).toEqual({ orgId: '100%' });
  });
});
