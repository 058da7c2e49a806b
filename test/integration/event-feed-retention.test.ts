import { describe, expect, it } from 'vitest';
import { eventPublisher } from '#shared/config/eventbridge';
import { eventually, useLocalStack } from '#test/support/local-stack';

describe('the events feed past EVENT_RETENTION_SECONDS (CONTRACT §20)', () => {
  const api = useLocalStack({ EVENT_RETENTION_SECONDS: '5' });

  it('answers 410 ITERATOR_EXPIRED for an iterator older than the retention, and no longer serves expired events', async () => {
    const token = await api.token('CRM_BOT');
    const occurredAt = new Date().toISOString();
    await eventPublisher().publish([
      {
        eventId: 'evt_retention_1',
        type: 'group.deleted',
        organisationId: api.orgId,
        occurredAt,
        data: { organisation_id: api.orgId, chat_id: 'cht_01M80K1R10W8DAZKGWSRRYPVK7' },
      },
    ]);
    const fresh = await eventually(async () => {
      const body = (await (await api.call(`/events/${api.orgId}`, { token })).json()) as {
        events: { eventId: string }[];
        iterator: string;
      };
      expect(body.events.map((event) => event.eventId)).toEqual(['evt_retention_1']);
      return body;
    });

    const expired = await eventually(
      async () => {
        const response = await api.call(`/events/${api.orgId}?iterator=${encodeURIComponent(fresh.iterator)}`, {
          token,
        });
        expect(response.status).toBe(410);
        return response;
      },
      { timeoutMs: 20_000 },
    );
    const restarted = await api.call(`/events/${api.orgId}`, { token });

    expect(expired.headers.get('content-type')).toBe('application/problem+json');
    expect(await expired.json()).toMatchObject({ status: 410, code: 'ITERATOR_EXPIRED' });
    expect(await restarted.json()).toEqual({ events: [], iterator: expect.any(String), done: true });
  });
});
