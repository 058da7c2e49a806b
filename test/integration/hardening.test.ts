import { describe, expect, it } from 'vitest';
import { deps } from '#shared/config/deps';
import { createdGroup } from '#test/support/groups';
import { useLocalStack } from '#test/support/local-stack';

describe('responses that carry a secret or a token (CONTRACT §13)', () => {
  const api = useLocalStack();

  it('marks the token, a new subscription with its secret, and a rotated secret Cache-Control: no-store', async () => {
    const token = await api.call('/token', { method: 'POST', json: api.stack.demo!.credentials.CRM_ADMIN });
    const { accessToken } = (await token.json()) as { accessToken: string };
    const created = await api.call(`/webhooks/${api.orgId}`, {
      method: 'POST',
      token: accessToken,
      json: { url: 'http://127.0.0.1:9/hooks' },
    });
    const { webhookId } = (await created.json()) as { webhookId: string };
    const rotated = await api.call(`/webhooks/${api.orgId}/${webhookId}/rotate-secret`, {
      method: 'POST',
      token: accessToken,
    });

    expect([token.status, created.status, rotated.status]).toEqual([200, 201, 200]);
    for (const response of [token, created, rotated]) expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('marks invite links, which let anyone join the group, Cache-Control: no-store', async () => {
    const token = await api.token('CRM_ADMIN');
    const { chatId } = await createdGroup(api, token);

    const read = await api.call(`/groups/${api.orgId}/${chatId}/invite-link`, { token });
    const reset = await api.call(`/groups/${api.orgId}/${chatId}/invite-link/reset`, { method: 'POST', token });

    expect([read.status, reset.status]).toEqual([200, 200]);
    expect(read.headers.get('cache-control')).toBe('no-store');
    expect(reset.headers.get('cache-control')).toBe('no-store');
  });
});

describe('POST /token attempt counting (CONTRACT §13)', () => {
  const api = useLocalStack();

  const attempt = (clientId: string, clientSecret = 'wrong') =>
    api.call('/token', { method: 'POST', json: { clientId, clientSecret } });

  it('checks at most 10 of 50 concurrent wrong attempts for one client id; the others get 429 (A-1)', async () => {
    const { clientId } = api.stack.demo!.credentials.CRM_AGENT;

    const responses = await Promise.all(Array.from({ length: 50 }, () => attempt(clientId)));

    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(10);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(40);
    expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
    const refused = responses.find((response) => response.status === 429)!;
    expect(((await refused.json()) as { code: string }).code).toBe('TOO_MANY_ATTEMPTS');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(800);
  });

  it("does not refuse a client id named after the caller's address because of that address's failures (A-1)", async () => {
    for (let index = 0; index < 10; index++) expect((await attempt(`cli_unknown_${index}`)).status).toBe(401);

    const named = await Promise.all(['ip:127.0.0.1', 'ip:::ffff:127.0.0.1', 'ip:::1'].map((id) => attempt(id)));

    expect(named.map((response) => response.status)).toEqual([401, 401, 401]);
  });

  it('keeps client-id counters out of the address key space, whatever the client id', async () => {
    const { identity } = deps();
    const now = new Date();
    for (const clientId of ['ip:192.0.2.1', '192.0.2.1', 'LOGINADDR#192.0.2.1']) {
      for (let index = 0; index < 3; index++)
        await identity.claimAttempt({ kind: 'client', id: clientId }, now, 900, 3);
    }

    const address = await identity.claimAttempt({ kind: 'address', id: '192.0.2.1' }, now, 900, 1);

    expect(address.allowed).toBe(true);
  });
});
