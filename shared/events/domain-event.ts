import { createHash } from 'node:crypto';
import type { EventType } from './catalog.ts';

/** Deterministic event ids: the same fact gives the same id, however often it is published. */
export const eventIdFor = (type: EventType, subjectId: string) =>
  `evt_${createHash('sha256').update(`${type}:${subjectId}`).digest('base64url').slice(0, 26)}`;

/** The EventBridge `detail` of an event: the webhook body of CONTRACT §7 plus the event id. */
export function eventDetail(event: {
  eventId: string;
  type: EventType;
  occurredAt: string;
  data: Record<string, unknown>;
}) {
  return { event_id: event.eventId, type: event.type, timestamp: event.occurredAt, ...event.data };
}
