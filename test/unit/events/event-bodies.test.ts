import { describe, expect, it } from 'vitest';
import { subscribedEvents, subscribesTo, subscriptionView } from '#shared/domain/webhooks/subscription';
import { EVENT_TYPES } from '#shared/events/catalog';
import { eventDetail } from '#shared/events/domain-event';
import { EVENT_BODIES } from '#shared/schemas/events';

const ORG = 'a0b1c2d3-0000-4000-8000-000000000001';

describe('eventDetail', () => {
  it('gives the webhook body with the event id, without fields its schema does not name', () => {
    const detail = eventDetail({
      eventId: 'evt_1',
      type: 'group.deleted',
      occurredAt: '2026-11-23T10:00:00.000Z',
      data: { organisation_id: ORG, chat_id: 'cht_1', internal: 'not for receivers' },
    });

    expect(detail).toEqual({
      event_id: 'evt_1',
      type: 'group.deleted',
      timestamp: '2026-11-23T10:00:00.000Z',
      organisation_id: ORG,
      chat_id: 'cht_1',
    });
  });

  it('refuses to publish an event that breaks its schema', () => {
    expect(() =>
      eventDetail({
        eventId: 'evt_2',
        type: 'message.status',
        occurredAt: '2026-11-23T10:00:00.000Z',
        data: { organisation_id: ORG, chat_id: 'cht_1', message_id: 'msg_1', status: 'queued', error: null },
      }),
    ).toThrow();
  });

  it('has a body schema for every event type', () => {
    expect(Object.keys(EVENT_BODIES).sort()).toEqual([...EVENT_TYPES].sort());
  });
});

describe('subscription events', () => {
  it('stores omitted, empty and "*" as every type, and a list as given without repeats', () => {
    expect(subscribedEvents(undefined)).toEqual(['*']);
    expect(subscribedEvents([])).toEqual(['*']);
    expect(subscribedEvents(['*'])).toEqual(['*']);
    expect(subscribedEvents(['group.updated', 'group.updated'])).toEqual(['group.updated']);
  });

  it('reads a subscription stored with the first four types as every type, new ones included', () => {
    const legacy = { events: ['report.failed', 'group.created', 'group.creation_failed', 'report.completed'] } as const;

    expect(subscribesTo({ events: [...legacy.events] }, 'message.received')).toBe(true);
    expect(subscribesTo({ events: ['group.created', 'report.failed'] }, 'message.received')).toBe(false);
    expect(subscribesTo({ events: ['*'] }, 'group.deleted')).toBe(true);
    expect(
      subscriptionView({
        webhookId: 'whk_1',
        orgId: ORG,
        url: 'https://example.com/hook',
        events: [...legacy.events],
        status: 'active',
        secrets: [],
        createdAt: '2026-11-23T10:00:00.000Z',
        updatedAt: '2026-11-23T10:00:00.000Z',
      }).events,
    ).toEqual(['*']);
  });
});
