import type { Config } from '#shared/config/env';
import { decodeCursor, encodeCursor } from '#shared/domain/cursor';
import { DomainError, ValidationError } from '#shared/errors';
import { webhookBodyOf } from '#shared/events/webhook-body';
import { logger } from '#shared/observability/logger';
import type { Clock } from '#shared/ports/clock';
import type { CursorKey } from '#shared/ports/cursor-key';
import type { EventFeed, FeedEntry } from '#shared/ports/event-feed';
import type { JobQueue } from '#shared/ports/job-queue';

/** The feed writer's queue. */
export const EVENT_FEED_QUEUE = 'event-feed';

/** The part of a bus event the feed reads: the detail is the webhook body plus `event_id` (as the dispatcher's). */
export interface FeedBusEvent {
  'detail-type': string;
  detail: { event_id?: string; organisation_id?: string; timestamp?: unknown; [field: string]: unknown };
}

/** Offers entries to the feed; the feed writer's appender gathers one batch's entries per organisation. */
export interface FeedAppender {
  offer(orgId: string, entry: FeedEntry): Promise<void>;
}

export interface AppendDeps {
  config: Pick<Config, 'events'>;
  clock: Clock;
  appender: FeedAppender;
  queue: Pick<JobQueue, 'send'>;
}

/**
 * A bus event forwarded by the feed writer to its own queue in its organisation's message group, as the dispatcher
 * forwards its fan-outs: EventBridge's SQS target cannot give an event its organisation's MessageGroupId, so without
 * this every event would be a tenant of its own and one organisation's burst would hold the feed writers while
 * everyone's events waited behind it. In its group, the fair queue hands a quiet organisation's events over first
 * (CONTRACT §18, §20).
 */
export interface AppendJob {
  kind: 'append';
  orgId: string;
  event: FeedBusEvent;
}

/** The feed writer's queue carries bus events (forwarded at once in their organisation's group) and append jobs. */
export async function feedMessage(deps: AppendDeps, message: FeedBusEvent | AppendJob): Promise<void> {
  if ((message as { kind?: unknown }).kind === 'append') return appendToFeed(deps, (message as AppendJob).event);
  const event = message as FeedBusEvent;
  const orgId = event.detail.organisation_id;
  if (typeof orgId !== 'string' || orgId === '') {
    logger.warn('event without organisation_id not appended to the feed', { type: event['detail-type'] });
    return;
  }
  const job: AppendJob = {
    kind: 'append',
    orgId,
    event: { 'detail-type': event['detail-type'], detail: event.detail },
  };
  await deps.queue.send(EVENT_FEED_QUEUE, job);
}

/**
 * Appends a published event to its organisation's feed (the feed writer, CONTRACT §20).
 * 1. Take the webhook body exactly as the dispatcher delivers it (webhookBodyOf) and the event id.
 * 2. Offer it with its expiry (EVENT_RETENTION_SECONDS from now); the feed appends each event id once, so a
 *    duplicate from the bus or a retried message changes nothing.
 */
export async function appendToFeed(
  deps: Pick<AppendDeps, 'config' | 'clock' | 'appender'>,
  event: FeedBusEvent,
): Promise<void> {
  const { eventId, organisationId, body } = webhookBodyOf(event.detail);
  if (!eventId || !organisationId) {
    logger.warn('event without event_id or organisation_id not appended to the feed', { type: event['detail-type'] });
    return;
  }
  const timestamp = typeof event.detail.timestamp === 'string' ? event.detail.timestamp : '';
  const expiresAt = Math.floor(deps.clock.now().getTime() / 1000) + deps.config.events.retentionSeconds;
  await deps.appender.offer(organisationId, { eventId, type: event['detail-type'], timestamp, body, expiresAt });
}

/** A feed commit holds at most this many events (one head write; DynamoDB's 400 KB item bounds the rest). */
const MAX_ENTRIES_PER_APPEND = 100;

/**
 * Group commit per organisation: the entries offered while an append of the organisation runs (the other records of
 * the queue batch, which the batch processor runs at once, or of other batches in this container) wait for it and
 * then go together in the next append — one commit of the feed's head for all of them, and never two appends of one
 * organisation racing for its head from the same container. Every offer settles with the append that carried it; a
 * failed append fails each of its records, whose retries append only what is missing.
 */
export class BatchingAppender implements FeedAppender {
  readonly #orgs = new Map<string, { entry: FeedEntry; settle: (error?: unknown) => void }[]>();

  constructor(
    private readonly feed: Pick<EventFeed, 'append'>,
    private readonly gatherMs = 2,
  ) {}

  offer(orgId: string, entry: FeedEntry): Promise<void> {
    return new Promise((resolve, reject) => {
      const settle = (error?: unknown) => (error === undefined ? resolve() : reject(error));
      const waiting = this.#orgs.get(orgId);
      if (waiting) {
        waiting.push({ entry, settle });
        return;
      }
      const queue = [{ entry, settle }];
      this.#orgs.set(orgId, queue);
      void this.#drain(orgId, queue);
    });
  }

  async #drain(orgId: string, queue: { entry: FeedEntry; settle: (error?: unknown) => void }[]): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, this.gatherMs));
    while (queue.length > 0) {
      const batch = queue.splice(0, MAX_ENTRIES_PER_APPEND);
      try {
        await this.feed.append(
          orgId,
          batch.map((offer) => offer.entry),
        );
        for (const offer of batch) offer.settle();
      } catch (error) {
        for (const offer of batch) offer.settle(error ?? new Error('append failed'));
      }
    }
    this.#orgs.delete(orgId);
  }
}

export interface ReadFeedDeps {
  config: Pick<Config, 'events'>;
  clock: Clock;
  feed: Pick<EventFeed, 'read'>;
  cursorKey: CursorKey;
}

export interface FeedEvent {
  eventId: string;
  type: string;
  timestamp: string;
  data: unknown;
}

const ITERATOR = '#/query/iterator';
/** How long a container may go on sealing with the key it read before a rotation (the key cache, CONTRACT §13). */
const KEY_CACHE_MS = 5 * 60_000;

/**
 * What an iterator is bound to (CONTRACT §20): the organisation and the `types` it was made with, in any order. Used
 * with other types, or without, it is refused: it has passed over events of the types it was not made for. Without
 * types the binding is the one iterators had before they were bound to types, so those stay valid.
 */
const bindingOf = (orgId: string, types?: string[]) =>
  types ? ['events', orgId, [...new Set(types)].sort()] : ['events', orgId];

/**
 * One page of the organisation's event feed (CONTRACT §20), oldest first.
 * 1. Open the iterator: sealed like the list cursors, bound to the organisation and `types` (otherwise 400 at
 *    #/query/iterator); under the current cursor key, or the one a rotation replaced (openIterator). It holds the
 *    last sequence looked at and when it was handed out. None: from the oldest event kept.
 * 2. Refuse an expired iterator with 410 ITERATOR_EXPIRED — the rule that refuses every reader who lost events and
 *    never one who keeps up:
 *    - the event right after its position is no longer kept (appended more than EVENT_RETENTION_SECONDS ago, or
 *      already removed by the retention): the reader never read it and never will. The feed checks this at every
 *      read, so handing out a fresh iterator at every call cannot hide it;
 *    - or the iterator was handed out more than EVENT_RETENTION_SECONDS ago (the contract's wording): anything
 *      appended after its position may have expired since.
 *    A reader that calls again within the retention and reads each event before it is that old meets neither; a
 *    reader without an iterator asks for what is kept, so what expired before it came is not lost to it.
 * 3. Read at most `limit` events of `types` after it (a page stops before a sequence no longer kept: the next call
 *    is refused, after every event still kept was served).
 * 4. Answer them with their webhook bodies, a new iterator (always) and `done` when nothing is committed after it.
 */
export async function readFeed(
  deps: ReadFeedDeps,
  input: { orgId: string; iterator?: string; types?: string[]; limit: number },
): Promise<{ events: FeedEvent[]; iterator: string; done: boolean }> {
  const binding = bindingOf(input.orgId, input.types);
  const now = deps.clock.now().getTime();
  const retentionMs = deps.config.events.retentionSeconds * 1000;
  let position = 0;
  let fromOldest = true;
  if (input.iterator !== undefined) {
    const { s, t, o } = await openIterator(deps, input.iterator, binding, now);
    if (!Number.isSafeInteger(s) || !Number.isSafeInteger(t) || (s as number) < 0 || (o !== undefined && o !== 1)) {
      throw new ValidationError([{ pointer: ITERATOR, message: 'the iterator is not valid here' }]);
    }
    if (now - (t as number) > retentionMs) throw expired(deps, 'the iterator was issued more than {retention} ago');
    position = s as number;
    fromOldest = o === 1;
  }
  const page = await deps.feed.read(input.orgId, {
    position,
    fromOldest,
    limit: input.limit,
    types: input.types ? new Set(input.types) : undefined,
    nowSeconds: Math.floor(now / 1000),
  });
  if (page.expired) throw expired(deps, 'events after the iterator passed the retention ({retention}) unread');
  const next = { s: page.position, t: now, ...(page.passing ? { o: 1 } : {}) };
  return {
    events: page.entries.map((entry) => ({
      eventId: entry.eventId,
      type: entry.type,
      timestamp: entry.timestamp,
      data: JSON.parse(entry.body) as unknown,
    })),
    iterator: encodeCursor(await deps.cursorKey.get(), next, binding) as string,
    done: page.done,
  };
}

const expired = (deps: Pick<ReadFeedDeps, 'config'>, what: string) =>
  new DomainError(
    'ITERATOR_EXPIRED',
    `${what.replace('{retention}', `${deps.config.events.retentionSeconds} s`)}; start again without one`,
  );

/**
 * Opens an iterator sealed with the current cursor key or with the key the last rotation replaced: an integrator
 * keeps its iterator across a rotation, while list cursors, which live for one listing, take the current key only.
 * The replaced key opens iterators for EVENT_RETENTION_SECONDS after the rotation (and the few minutes a container
 * may go on sealing with the key it had read); later, any iterator it sealed is older than that: 410. A container
 * that has not read the new key yet reads the keys again before it refuses an iterator.
 */
async function openIterator(
  deps: Pick<ReadFeedDeps, 'cursorKey' | 'config'>,
  iterator: string,
  binding: unknown,
  now: number,
): Promise<Record<string, unknown>> {
  const openWith = (key: Uint8Array) => {
    try {
      return decodeCursor(key, iterator, binding, ITERATOR);
    } catch (error) {
      if (error instanceof ValidationError) return undefined;
      throw error;
    }
  };
  const opened = openWith(await deps.cursorKey.get());
  if (opened) return opened;
  for (const refresh of [false, true]) {
    const { current, previous } = await deps.cursorKey.keys({ refresh });
    const byCurrent = openWith(current);
    if (byCurrent) return byCurrent;
    const byPrevious = previous && openWith(previous.key);
    if (byPrevious) {
      const window = deps.config.events.retentionSeconds * 1000 + KEY_CACHE_MS;
      if (previous.replacedAt && now - previous.replacedAt.getTime() > window) {
        throw expired(deps, 'the iterator was sealed before a cursor-key rotation more than {retention} ago');
      }
      return byPrevious;
    }
  }
  throw new ValidationError([{ pointer: ITERATOR, message: 'the iterator is not valid here' }]);
}
