import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { consolePolicy } from '#shared/console/serve';
import { notFoundRoute } from '#shared/http/fallback';
import { matchRoute } from '#shared/routes/match';

describe('the console routes (CONTRACT §24)', () => {
  it('sends scripts and style sheets to their own routes, not to a page with an id', () => {
    const operation = (path: string) => {
      const match = matchRoute('GET', `/api/wp-crm${path}`);
      return match.kind === 'route' ? match.route.operationId : match.kind;
    };

    expect(operation('/console')).toBe('getConsole');
    expect(operation('/console/scripts/app.0123456789ab.js')).toBe('getConsoleScript');
    expect(operation('/console/styles/app.0123456789ab.css')).toBe('getConsoleStyles');
    expect(operation('/console/groups')).toBe('getConsolePage');
    expect(operation('/console/groups/cht_1')).toBe('getConsolePageItem');
  });

  it('forbids framing unless an operator lists origins, and never allows inline script or another origin', () => {
    const closed = consolePolicy([]);
    const listed = consolePolicy(['https://intranet.example.com', 'https://wiki.example.com']);

    expect(closed).toContain("frame-ancestors 'none'");
    expect(listed).toContain('frame-ancestors https://intranet.example.com https://wiki.example.com');
    for (const policy of [closed, listed]) {
      expect(policy).toMatch(/^default-src 'self'; script-src 'self';/);
      expect(policy).not.toMatch(/unsafe-|https?:\/\/(?!intranet|wiki)|\*/);
    }
  });

  it("answers a page's address with a trailing slash, the link's /console/ among them, with the page's own (302)", async () => {
    const fallback = (method: string, rawPath: string, rawQueryString = '') =>
      notFoundRoute({
        rawPath,
        rawQueryString,
        headers: {},
        requestContext: { http: { method }, requestId: 'req_1' },
      } as unknown as APIGatewayProxyEventV2);

    expect(await fallback('GET', '/api/wp-crm/console/')).toEqual({
      statusCode: 302,
      headers: { location: '/api/wp-crm/console', 'cache-control': 'no-store', 'x-request-id': 'req_1' },
    });
    expect((await fallback('GET', '/api/wp-crm/console/groups/cht_1//', 'a=1')).headers).toMatchObject({
      location: '/api/wp-crm/console/groups/cht_1?a=1',
    });
    for (const [method, path] of [
      ['POST', '/api/wp-crm/console/'],
      ['GET', '/api/wp-crm/console/reports/rpt_1/'],
      ['GET', '/api/wp-crm/console/scripts/app.0123456789ab.js/'],
      ['GET', '//example.com/api/wp-crm/console/'],
      ['GET', '/api/wp-crm/channels/0b0e2bd8-3a41-4b7a-9b43-2f7a8e0c1d55/'],
    ] as const) {
      expect((await fallback(method, path)).statusCode, `${method} ${path}`).toBeGreaterThanOrEqual(404);
    }
  });
});
