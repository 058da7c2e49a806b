import * as v from 'valibot';
import { appendDeps } from '#shared/config/events';
import { appendToFeed } from '#shared/domain/events/feed';
import { sqsConsumer } from '#shared/queue/consumer';

/** A domain event from the bus rule AppendToFeed. */
const BusEvent = v.looseObject({ 'detail-type': v.string(), detail: v.looseObject({}) });

export const handler = sqsConsumer('event-feed', BusEvent, async (event) => {
  await appendToFeed(appendDeps(), event);
});
