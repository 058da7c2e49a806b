import { describe, expect, it } from 'vitest';
import {
  MAX_DELIVERIES,
  MAX_EVENTS,
  type OverviewDelivery,
  type OverviewEvent,
  type OverviewSource,
  readOverview,
} from '#shared/domain/console/overview';

const ORG = '0b0e2bd8-3a41-4b7a-9b43-2f7a8e0c1d55';
/** 09:37 UTC: the window is the 24 whole hours from 10:00 the day before up to the 09:00 hour now running. */
const NOW = new Date('2026-11-24T09:37:12.345Z');
const FROM = '2026-11-23T10:00:00.000Z';
const clock = { now: () => NOW };

/** A source that answers with what it holds, and records what it was asked. */
function source(
  held: {
    events?: OverviewEvent[];
    deliveries?: OverviewDelivery[];
    eventsComplete?: boolean;
    deliveriesComplete?: boolean;
  } = {},
) {
  const asked: { events: unknown[]; deliveries: unknown[] } = { events: [], deliveries: [] };
  const fake: OverviewSource = {
    recentEvents: async (orgId, options) => {
      asked.events.push({ orgId, ...options });
      return { events: held.events ?? [], complete: held.eventsComplete ?? true };
    },
    recentDeliveries: async (orgId, options) => {
      asked.deliveries.push({ orgId, ...options });
      return { deliveries: held.deliveries ?? [], complete: held.deliveriesComplete ?? true };
    },
  };
  return { fake, asked };
}

let sequence = 0;
const event = (type: string, timestamp: string): OverviewEvent => ({
  eventId: `evt_${String(++sequence).padStart(4, '0')}`,
  type,
  timestamp,
});
const delivery = (status: OverviewDelivery['status'], createdAt: string): OverviewDelivery => ({ status, createdAt });
const hourAt = (overview: Awaited<ReturnType<typeof readOverview>>, hour: string) =>
  overview.hours.find((entry) => entry.hour === hour)!;

describe('the Overview aggregate (readOverview, CONTRACT §24)', () => {
  it('reads the 24 whole hours up to the current one (UTC), oldest first, in one bounded read of each source', async () => {
    const { fake, asked } = source();

    const overview = await readOverview({ clock, source: fake }, { orgId: ORG });

    expect(overview.from).toBe(FROM);
    expect(overview.to).toBe(NOW.toISOString());
    expect(overview.hours).toHaveLength(24);
    expect(overview.hours[0]!.hour).toBe(FROM);
    expect(overview.hours[23]!.hour).toBe('2026-11-24T09:00:00.000Z');
    for (const [index, entry] of overview.hours.entries()) {
      expect(Date.parse(entry.hour) - Date.parse(FROM)).toBe(index * 3_600_000);
      expect(entry).toMatchObject({
        deliveries: { succeeded: 0, failed: 0, pending: 0 },
        groups: { created: 0, failed: 0 },
        reports: { completed: 0, failed: 0 },
      });
    }
    expect(asked.events).toEqual([{ orgId: ORG, from: FROM, latest: 10, limit: MAX_EVENTS }]);
    expect(asked.deliveries).toEqual([{ orgId: ORG, from: FROM, limit: MAX_DELIVERIES }]);
    expect(overview.complete).toBe(true);
    expect(overview.latestEvents).toEqual([]);
  });

  it("counts groups and reports by outcome at each event's hour, and nothing for the other types", async () => {
    const events = [
      event('report.failed', '2026-11-24T09:36:00.000Z'),
      event('group.created', '2026-11-24T09:00:00.000Z'),
      event('message.received', '2026-11-24T08:59:59.999Z'),
      event('group.created', '2026-11-24T08:10:00.000Z'),
      event('group.creation_failed', '2026-11-24T08:05:00.000Z'),
      event('report.completed', '2026-11-23T22:30:00.000Z'),
      event('report.completed', '2026-11-23T10:59:59.999Z'),
      event('group.created', FROM),
    ];
    const { fake } = source({ events });

    const overview = await readOverview({ clock, source: fake }, { orgId: ORG });

    expect(hourAt(overview, '2026-11-24T09:00:00.000Z')).toMatchObject({
      groups: { created: 1, failed: 0 },
      reports: { completed: 0, failed: 1 },
    });
    expect(hourAt(overview, '2026-11-24T08:00:00.000Z')).toMatchObject({
      groups: { created: 1, failed: 1 },
      reports: { completed: 0, failed: 0 },
    });
    expect(hourAt(overview, '2026-11-23T22:00:00.000Z').reports).toEqual({ completed: 1, failed: 0 });
    expect(hourAt(overview, FROM)).toMatchObject({
      groups: { created: 1, failed: 0 },
      reports: { completed: 1, failed: 0 },
    });
    expect(overview.totals).toEqual({
      deliveries: { succeeded: 0, failed: 0, pending: 0 },
      groups: { created: 3, failed: 1 },
      reports: { completed: 2, failed: 1 },
    });
  });

  it('counts deliveries at their creation: succeeded, failed, and pending or retrying as pending', async () => {
    const deliveries = [
      delivery('succeeded', '2026-11-24T09:01:00.000Z'),
      delivery('succeeded', '2026-11-24T09:30:00.000Z'),
      delivery('failed', '2026-11-24T09:02:00.000Z'),
      delivery('pending', '2026-11-24T09:03:00.000Z'),
      delivery('retrying', '2026-11-24T09:04:00.000Z'),
      delivery('failed', '2026-11-23T11:00:00.000Z'),
    ];
    const { fake } = source({ deliveries });

    const overview = await readOverview({ clock, source: fake }, { orgId: ORG });

    expect(hourAt(overview, '2026-11-24T09:00:00.000Z').deliveries).toEqual({ succeeded: 2, failed: 1, pending: 2 });
    expect(hourAt(overview, '2026-11-23T11:00:00.000Z').deliveries).toEqual({ succeeded: 0, failed: 1, pending: 0 });
    expect(overview.totals.deliveries).toEqual({ succeeded: 2, failed: 2, pending: 2 });
  });

  it('leaves out of the chart what lies outside the window, and still lists it among the latest events', async () => {
    const events = [
      // Later than the hour now running (a clock ahead of ours), and older than the window: shown, not counted.
      event('group.created', '2026-11-24T10:00:00.000Z'),
      event('report.completed', '2026-11-23T09:59:59.999Z'),
      event('group.creation_failed', '2026-11-20T12:00:00.000Z'),
    ];
    const deliveries = [delivery('succeeded', '2026-11-23T09:59:59.999Z'), delivery('failed', '2026-11-24T10:00:00Z')];
    const { fake } = source({ events, deliveries });

    const overview = await readOverview({ clock, source: fake }, { orgId: ORG });

    expect(overview.totals).toEqual({
      deliveries: { succeeded: 0, failed: 0, pending: 0 },
      groups: { created: 0, failed: 0 },
      reports: { completed: 0, failed: 0 },
    });
    expect(overview.latestEvents.map((entry) => entry.type)).toEqual([
      'group.created',
      'report.completed',
      'group.creation_failed',
    ]);
  });

  it('lists the 10 latest events as the feed gave them, newest first, with their id, type and time only', async () => {
    const events = Array.from({ length: 14 }, (_, index) => ({
      ...event(
        index % 2 ? 'message.received' : 'group.created',
        new Date(NOW.getTime() - index * 60_000).toISOString(),
      ),
      data: { subject: 'not for the Overview' },
    }));
    const { fake } = source({ events });

    const overview = await readOverview({ clock, source: fake }, { orgId: ORG });

    expect(overview.latestEvents).toEqual(
      events.slice(0, 10).map(({ eventId, type, timestamp }) => ({ eventId, type, timestamp })),
    );
    // The chart counts all 14, not only the 10 listed.
    expect(overview.totals.groups.created).toBe(7);
  });

  it('says the figures are a floor when either read stopped at its bound', async () => {
    const day = '2026-11-24T09:10:00.000Z';
    for (const [eventsComplete, deliveriesComplete, complete] of [
      [false, true, false],
      [true, false, false],
      [true, true, true],
    ] as const) {
      const { fake } = source({
        events: [event('group.created', day)],
        deliveries: [delivery('succeeded', day)],
        eventsComplete,
        deliveriesComplete,
      });

      const overview = await readOverview({ clock, source: fake }, { orgId: ORG });

      expect(overview.complete, `${eventsComplete} ${deliveriesComplete}`).toBe(complete);
      // What was read is counted all the same.
      expect(overview.totals.groups.created).toBe(1);
      expect(overview.totals.deliveries.succeeded).toBe(1);
    }
  });
});
