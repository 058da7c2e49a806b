import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { EVENT_BODIES } from '#shared/schemas/events';
import type { EventType } from './catalog.ts';

/** Deterministic event ids: the same fact gives the same id, however often it is published. */
export const eventIdFor = (type: EventType, subjectId: string) =>
  `evt_${createHash('sha256').update(`${type}:${subjectId}`).digest('base64url').slice(0, 26)}`;

/**
 * The EventBridge `detail` of an event: the webhook body of CONTRACT §7 / §12 plus the event id. The body is
 * checked against its schema (the one openapi.json documents), so an event that breaks its contract fails to
 * publish instead of reaching receivers; fields the schema does not name are dropped.
 */
export function eventDetail(event: {
  eventId: string;
  type: EventType;
  occurredAt: string;
  data: Record<string, unknown>;
}) {
  const body = v.parse(EVENT_BODIES[event.type], { type: event.type, timestamp: event.occurredAt, ...event.data });
  return { event_id: event.eventId, ...body };
}
