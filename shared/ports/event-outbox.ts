import type { DomainEvent } from './event-publisher.ts';

/**
 * The events a network notification produced, recorded once per event id (CONTRACT §12: one notification gives
 * each event at most once, however often Meta repeats it). Recording is the conditional write that decides which
 * call publishes; an event recorded but never stamped published is republished by the group sweeper.
 */
export interface EventOutbox {
  /** Records the event unless its id is recorded already; true for the one call that recorded it. */
  record(event: DomainEvent, now: string): Promise<boolean>;
  markPublished(event: Pick<DomainEvent, 'eventId' | 'organisationId'>, now: string): Promise<void>;
  /** Recorded events not yet stamped published, oldest first. */
  listUnpublished(limit: number): Promise<(DomainEvent & { recordedAt: string })[]>;
}
