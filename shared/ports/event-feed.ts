/** One event as the feed keeps it (CONTRACT §20). */
export interface FeedEntry {
  /** The event id: its webhook-id. */
  eventId: string;
  type: string;
  /** When the event happened (the body's `timestamp`). */
  timestamp: string;
  /** The webhook body, the very text the dispatcher delivers. */
  body: string;
  /** Unix seconds after which the entry is no longer served (EVENT_RETENTION_SECONDS after it was appended). */
  expiresAt: number;
}

/** An entry at its place in the organisation's feed. */
export interface SequencedEntry extends FeedEntry {
  seq: number;
}

export interface FeedPage {
  /** Matching entries after the position read from, in sequence order. */
  entries: SequencedEntry[];
  /** Every sequence up to here was looked at: the next read starts after it. */
  position: number;
  /** Nothing is committed after `position` (as of this read). */
  done: boolean;
  /**
   * The sequence right after the position read from is no longer kept (past its expiry, or removed by the
   * retention): the reader lost events it never read. Then `entries` is empty and `position` the one read from.
   */
  expired: boolean;
  /**
   * `fromOldest` only: the page stopped (at its scan limit) before meeting a sequence still kept. The next read from
   * `position` goes on with `fromOldest`, passing over the rest of the feed's expired start.
   */
  passing: boolean;
}

/**
 * An organisation's event feed: an append-only log in one order, with a sequence per event assigned when it is
 * committed. Never skip, never repeat: an entry is readable from the moment its sequence is committed, no sequence
 * is committed before the ones below it, each event id is appended once however often it is offered, and a read
 * returns every committed entry after its position in sequence order — or says that one is no longer kept.
 */
export interface EventFeed {
  /** Appends the entries not yet in the feed, in the order given; returns how many were new. */
  append(orgId: string, entries: FeedEntry[]): Promise<number>;
  /**
   * Reads after `position`: at most `limit` entries of `types` (all when undefined), as kept at `nowSeconds`.
   * Never passes over a sequence no longer kept: the page stops before it, and a read that starts at it is
   * `expired`. Only `fromOldest` (a reader without a position: from the oldest event kept) passes over the
   * sequences at the start of the feed that are no longer kept.
   */
  read(
    orgId: string,
    options: { position: number; fromOldest?: boolean; limit: number; types?: ReadonlySet<string>; nowSeconds: number },
  ): Promise<FeedPage>;
}
