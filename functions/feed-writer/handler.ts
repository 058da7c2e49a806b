import * as v from 'valibot';
import { appendDeps } from '#shared/config/events';
import { EVENT_FEED_QUEUE, feedMessage } from '#shared/domain/events/feed';
import { sqsConsumer } from '#shared/queue/consumer';

/** A domain event from the bus rule AppendToFeed, or its append job in the organisation's group. */
const BusEvent = v.looseObject({ 'detail-type': v.string(), detail: v.looseObject({}) });
const FeedMessage = v.union([v.object({ kind: v.literal('append'), orgId: v.string(), event: BusEvent }), BusEvent]);

export const handler = sqsConsumer(EVENT_FEED_QUEUE, FeedMessage, async (message) => {
  await feedMessage(appendDeps(), message);
});
