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

/**
 * One page of the organisation's event feed (CONTRACT §20), oldest first.
 * 1. Open the iterator (sealed like the list cursors, bound to the organisation): the last sequence read and when
 *    it was handed out. None: from the oldest event kept. Older than EVENT_RETENTION_SECONDS → 410 ITERATOR_EXPIRED.
 * 2. Read at most `limit` events of `types` after it.
 * 3. Answer them with their webhook bodies, a new iterator (always) and `done` when nothing is committed after it.
 */
export async function readFeed(
  deps: ReadFeedDeps,
  input: { orgId: string; iterator?: string; types?: string[]; limit: number },
): Promise<{ events: FeedEvent[]; iterator: string; done: boolean }> {
  const key = await deps.cursorKey.get();
  const binding = ['events', input.orgId];
  const now = deps.clock.now().getTime();
  const opened = decodeCursor(key, input.iterator, binding, ITERATOR);
  let position = 0;
  if (opened) {
    const { s, t } = opened;
    if (!Number.isSafeInteger(s) || !Number.isSafeInteger(t) || (s as number) < 0) {
      throw new ValidationError([{ pointer: ITERATOR, message: 'the iterator is not valid here' }]);
    }
    if (now - (t as number) > deps.config.events.retentionSeconds * 1000) {
      throw new DomainError(
        'ITERATOR_EXPIRED',
        `the iterator was issued more than ${deps.config.events.retentionSeconds} s ago; start again without one`,
      );
    }
    position = s as number;
  }
  const page = await deps.feed.read(input.orgId, {
    position,
    limit: input.limit,
    types: input.types ? new Set(input.types) : undefined,
    nowSeconds: Math.floor(now / 1000),
  });
  return {
    events: page.entries.map((entry) => ({
      eventId: entry.eventId,
      type: entry.type,
      timestamp: entry.timestamp,
      data: JSON.parse(entry.body) as unknown,
    })),
    iterator: encodeCursor(key, { s: page.position, t: now }, binding) as string,
    done: page.done,
  };
}
