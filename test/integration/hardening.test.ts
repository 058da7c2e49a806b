import { describe, expect, it } from 'vitest';
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
