import { describe, expect, it } from 'vitest';
import { matchRoute } from '#shared/routes/match';

describe('matchRoute', () => {
  it('matches a route and decodes its path parameters', () => {
    const match = matchRoute('GET', '/api/wp-crm/channels/a%20b');

    expect(match).toMatchObject({ kind: 'route', params: { orgId: 'a b' } });
  });

  it('reports the allowed methods of a path taken with another method', () => {
    expect(matchRoute('DELETE', '/api/wp-crm/token')).toEqual({ kind: 'method-not-allowed', allow: ['POST'] });
  });

  it('does not let a parameter span segments', () => {
    expect(matchRoute('GET', '/api/wp-crm/channels/a/b').kind).toBe('not-found');
  });
});
