import { forOrganisation } from '#shared/adapters/aws/tenant-scope';
import type { EventType } from '#shared/events/catalog';
import { eventIdFor } from '#shared/events/domain-event';
import { logger } from '#shared/observability/logger';
import type { Clock } from '#shared/ports/clock';
import type { EventOutbox } from '#shared/ports/event-outbox';
import type { DomainEvent, EventPublisher } from '#shared/ports/event-publisher';

export interface PublishOnceDeps {
  clock: Clock;
  events: EventPublisher;
  outbox: EventOutbox;
}

/**
 * An event about a network notification. Its id is derived from the notification's own identity (`identity`:
 * Meta's ids, or what the notification says when it carries none), so every repeat of the notification gives the
 * same id.
 */
export function notificationEvent(
  type: EventType,
  identity: string,
  input: { orgId: string; occurredAt: string; data: Record<string, unknown> },
): DomainEvent {
  return {
    eventId: eventIdFor(type, identity),
    type,
    organisationId: input.orgId,
    occurredAt: input.occurredAt,
    data: { organisation_id: input.orgId, ...input.data },
  };
}

/**
 * Publishes an event once per id.
 * 1. Record it with a conditional write; a repeat of the notification finds it recorded and stops here.
 * 2. Publish, then stamp it published. A crash between 1 and the stamp leaves it to the group sweeper.
 */
export async function publishOnce(deps: PublishOnceDeps, event: DomainEvent): Promise<void> {
  const now = deps.clock.now().toISOString();
  if (!(await deps.outbox.record(event, now))) {
    logger.debug('event already recorded; a repeated notification publishes nothing', { eventId: event.eventId });
    return;
  }
  await deps.events.publish([event]);
  await deps.outbox.markPublished(event, deps.clock.now().toISOString());
}

/** How long a recorded event may wait for its own publisher before the sweeper publishes it. */
const REPUBLISH_AFTER_SECONDS = 60;

/** Publishes recorded events whose publisher crashed before stamping them; returns how many. */
export async function republishRecordedEvents(deps: PublishOnceDeps, limit: number): Promise<number> {
  const now = deps.clock.now().getTime();
  const stranded = (await deps.outbox.listUnpublished(limit)).filter(
    (event) => now - Date.parse(event.recordedAt) >= REPUBLISH_AFTER_SECONDS * 1000,
  );
  for (const { recordedAt: _, ...event } of stranded) {
    const { eventId, type, occurredAt, data } = event;
    // Stamped with its organisation's credentials (CONTRACT §25).
    await forOrganisation(event.organisationId, async (organisationId) => {
      await deps.events.publish([{ eventId, type, organisationId, occurredAt, data }]);
      await deps.outbox.markPublished({ eventId, organisationId }, deps.clock.now().toISOString());
    });
  }
  return stranded.length;
}
