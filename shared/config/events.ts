import { DynamoEventFeed } from '#shared/adapters/dynamodb/event-feed';
import { BatchingAppender, type feedMessage, type readFeed } from '#shared/domain/events/feed';
import { clock, config } from './core.ts';
import { documentClient } from './dynamodb.ts';
import { type DepsOf, instance, lazyDeps } from './instances.ts';
import { cursorKey } from './keys.ts';
import { jobQueue } from './sqs.ts';

/** The organisations' event feeds (CONTRACT §20), in the table. */
export function eventFeed(): DynamoEventFeed {
  return instance(eventFeed, () => new DynamoEventFeed(documentClient(), config().aws.tableName));
}

/** The feed writer's appender: one per container, gathering a queue batch's events per organisation. */
function appender(): BatchingAppender {
  return instance(appender, () => new BatchingAppender(eventFeed()));
}

export function appendDeps(): DepsOf<typeof feedMessage> {
  return instance(appendDeps, () => lazyDeps({ config, clock, appender, queue: jobQueue }));
}

/** Reading the feed: the table, and the key that seals iterators (the list cursors' key). */
export function readFeedDeps(): DepsOf<typeof readFeed> {
  return instance(readFeedDeps, () => lazyDeps({ config, clock, feed: eventFeed, cursorKey }));
}
