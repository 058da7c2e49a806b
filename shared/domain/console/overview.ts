import type { Clock } from '#shared/ports/clock';

/** An event as the Overview counts it. */
export interface OverviewEvent {
  eventId: string;
  type: string;
  timestamp: string;
}

/** A delivery as the Overview counts it. */
export interface OverviewDelivery {
  status: 'pending' | 'retrying' | 'succeeded' | 'failed';
  createdAt: string;
}

/**
 * What the Overview reads, from records the service keeps anyway (no write per event is added for it): the
 * organisation's events feed, newest first, and its subscriptions' delivery records, by creation time.
 */
export interface OverviewSource {
  /** Events newest first: every one since `from`, and at least `latest` in all; at most `limit` (then incomplete). */
  recentEvents(
    orgId: string,
    options: { from: string; latest: number; limit: number },
  ): Promise<{ events: OverviewEvent[]; complete: boolean }>;
  /** Deliveries of every subscription created since `from`; at most `limit` (then incomplete). */
  recentDeliveries(
    orgId: string,
    options: { from: string; limit: number },
  ): Promise<{ deliveries: OverviewDelivery[]; complete: boolean }>;
}

const HOUR_MS = 3_600_000;
const HOURS = 24;
const LATEST = 10;
/** One read counts at most this many events and this many deliveries (about 20 and 10 query pages). */
export const MAX_EVENTS = 20_000;
export const MAX_DELIVERIES = 10_000;

const emptyCounts = () => ({
  deliveries: { succeeded: 0, failed: 0, pending: 0 },
  groups: { created: 0, failed: 0 },
  reports: { completed: 0, failed: 0 },
});
type Counts = ReturnType<typeof emptyCounts>;

/** Which counter an event moves, if any. */
const EVENT_COUNTERS: Record<string, (counts: Counts) => void> = {
  'group.created': (counts) => void counts.groups.created++,
  'group.creation_failed': (counts) => void counts.groups.failed++,
  'report.completed': (counts) => void counts.reports.completed++,
  'report.failed': (counts) => void counts.reports.failed++,
};

/**
 * `GET /console-overview/{orgId}`: the Overview's chart, one read (CONTRACT §24).
 * 1. The window: the 24 whole hours up to the current one (UTC), oldest first.
 * 2. Groups and reports by outcome: the feed's `group.created` / `group.creation_failed` / `report.completed` /
 *    `report.failed` events, at each event's time; the 10 latest events of any type come from the same read.
 * 3. Deliveries by outcome (succeeded, failed, pending or retrying) at each delivery's creation.
 * A day with more than the read's bounds is shown as far as read, and says so (`complete: false`).
 */
export async function readOverview(deps: { clock: Clock; source: OverviewSource }, input: { orgId: string }) {
  const now = deps.clock.now();
  const firstHour = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS - (HOURS - 1) * HOUR_MS;
  const from = new Date(firstHour).toISOString();
  const [feed, log] = await Promise.all([
    deps.source.recentEvents(input.orgId, { from, latest: LATEST, limit: MAX_EVENTS }),
    deps.source.recentDeliveries(input.orgId, { from, limit: MAX_DELIVERIES }),
  ]);
  const hours = Array.from({ length: HOURS }, (_, index) => ({
    hour: new Date(firstHour + index * HOUR_MS).toISOString(),
    ...emptyCounts(),
  }));
  const totals = emptyCounts();
  const hourOf = (iso: string) => {
    const index = Math.floor((Date.parse(iso) - firstHour) / HOUR_MS);
    return index >= 0 && index < HOURS ? hours[index] : undefined;
  };
  for (const event of feed.events) {
    const count = EVENT_COUNTERS[event.type];
    const hour = hourOf(event.timestamp);
    if (!count || !hour) continue;
    count(hour);
    count(totals);
  }
  for (const delivery of log.deliveries) {
    const hour = hourOf(delivery.createdAt);
    if (!hour) continue;
    const outcome = delivery.status === 'retrying' ? 'pending' : delivery.status;
    hour.deliveries[outcome]++;
    totals.deliveries[outcome]++;
  }
  return {
    from,
    to: now.toISOString(),
    hours,
    totals,
    latestEvents: feed.events.slice(0, LATEST).map(({ eventId, type, timestamp }) => ({ eventId, type, timestamp })),
    complete: feed.complete && log.complete,
  };
}
