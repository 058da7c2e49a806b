import { describe, expect, it } from 'vitest';
import { consolePolicy } from '#shared/console/serve';
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
});
