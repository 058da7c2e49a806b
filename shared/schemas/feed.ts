import * as v from 'valibot';
import { EVENT_TYPES, type EventType } from '#shared/events/catalog';
import { Limit, Timestamp } from './common.ts';
import { EVENT_BODIES } from './events.ts';

/** Each top-level schema is built through this, so a bundle keeps only the schemas it uses (see common.ts). */
/* @__NO_SIDE_EFFECTS__ */ const schema = <T>(build: () => T): T => build();

const KNOWN_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);

/** `GET /events/:orgId` (CONTRACT §20): `iterator` from the previous page, `types` comma-separated, `limit` 1–100. */
export const EventFeedQuery = schema(() =>
  v.strictObject({
    limit: Limit,
    iterator: v.optional(
      v.pipe(
        v.string(),
        v.minLength(1),
        v.maxLength(2048),
        v.description('The previous page\'s "iterator", with the same "types" it was made with (another or none: 400)'),
      ),
    ),
    types: v.optional(
      v.pipe(
        v.string(),
        v.maxLength(1024),
        v.description(`Comma-separated event types to return (others are passed over): ${EVENT_TYPES.join(', ')}`),
        v.transform((text) => text.split(',').map((type) => type.trim())),
        v.check(
          (types) => types.every((type) => KNOWN_TYPES.has(type)),
          `must list event types, comma-separated: ${EVENT_TYPES.join(', ')}`,
        ),
        v.transform((types) => types as EventType[]),
      ),
    ),
  }),
);

export const EventFeedPage = schema(() =>
  v.object({
    events: v.pipe(
      v.array(
        v.object({
          eventId: v.pipe(v.string(), v.description("The event's webhook-id")),
          type: v.picklist(EVENT_TYPES),
          timestamp: v.pipe(Timestamp, v.description('When it happened')),
          data: v.pipe(
            v.union(Object.values(EVENT_BODIES)),
            v.description('The webhook body of the event, byte for byte as delivered'),
          ),
        }),
      ),
      v.description('Oldest first'),
    ),
    iterator: v.pipe(v.string(), v.description('Where the next call starts: always present, keep it')),
    done: v.pipe(v.boolean(), v.description('Caught up: nothing was committed after this page (as of this call)')),
  }),
);
