import { describe, expect, it } from 'vitest';
import { createdGroup } from '#test/support/groups';
import { useLocalStack } from '#test/support/local-stack';
import { Receiver } from '#test/support/receiver';

/**
 * CONTRACT §10: `nextCursor` is null on the last page. DynamoDB answers a LastEvaluatedKey whenever a query stopped at
 * its Limit, even on the last item, so a list of two items paged one at a time used to take three pages, the last
 * empty. Every list route pages through queryPage (shared/adapters/dynamodb/paging.ts).
 */
describe('paging every list one item at a time (CONTRACT §10)', () => {
  const api = useLocalStack({ GROUP_CREATE_RATE_LIMIT: '1000/60' });

  /** Follows nextCursor from the first page with limit=1; returns the size of every page. */
  async function pageSizes(path: string, key: string, token: string): Promise<number[]> {
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const separator = path.includes('?') ? '&' : '?';
      const query: string = `${separator}limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const response = await api.call(`${path}${query}`, { token });
      expect(response.status, path).toBe(200);
      const body = (await response.json()) as Record<string, unknown> & { nextCursor: string | null };
      sizes.push((body[key] as unknown[]).length);
      cursor = body.nextCursor;
    } while (cursor && sizes.length < 20);
    return sizes;
  }

  it('answers a full last page with nextCursor null, on every list route', async () => {
    const token = await api.token('CRM_ADMIN');
    const owner = await api.token('ACCOUNT_OWNER');
    const receiver = await new Receiver().start();
    try {
      const { chatId } = await createdGroup(api, token, 'Paging one');
      await createdGroup(api, token, 'Paging two');
      for (const text of ['first', 'second']) {
        const sent = await api.call('/messaging/send-message', { method: 'POST', token, json: { chatId, text } });
        expect(sent.status).toBe(202);
      }
      for (const reportType of ['CHAT', 'GOAL']) {
        const requested = await api.call(`/reports/${api.orgId}`, { method: 'POST', token, json: { reportType } });
        expect(requested.status).toBe(202);
      }
      for (const path of ['/one', '/two']) {
        const created = await api.call(`/webhooks/${api.orgId}`, {
          method: 'POST',
          token,
          json: { url: `${receiver.url}${path}`, events: ['group.created'] },
        });
        expect(created.status).toBe(201);
      }

      const lists: [string, string, string, number][] = [
        [`/groups/${api.orgId}`, 'groups', token, 2],
        [`/chats/${api.orgId}/${chatId}/messages`, 'messages', token, 2],
        [`/reports/${api.orgId}`, 'reports', token, 2],
        [`/webhooks/${api.orgId}`, 'webhooks', owner, 2],
        [`/channels/${api.orgId}`, 'channels', owner, 3],
      ];
      for (const [path, key, asRole, count] of lists) {
        const sizes = await pageSizes(path, key, asRole);
        expect(sizes.length, path).toBeGreaterThanOrEqual(count);
        expect(sizes, path).toEqual(sizes.map(() => 1));
      }
    } finally {
      await receiver.stop();
    }
  });
});
