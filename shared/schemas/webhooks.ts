import * as v from 'valibot';
import { ALL_EVENTS, EVENT_TYPES } from '#shared/events/catalog';
import { Count, NextCursor, Timestamp } from './common.ts';

/** Each top-level schema is built through this, so a bundle keeps only the schemas it uses (see common.ts). */
/* @__NO_SIDE_EFFECTS__ */ const schema = <T>(build: () => T): T => build();

const Url = schema(() => v.pipe(v.string(), v.minLength(1), v.maxLength(2048)));
const EventName = schema(() => v.picklist([...EVENT_TYPES, ALL_EVENTS], 'must be one of the event types, or *'));
const Events = schema(() =>
  v.pipe(
    v.array(EventName),
    v.maxLength(EVENT_TYPES.length),
    v.check(
      (events) => !events.includes(ALL_EVENTS) || events.length === 1,
      '"*" (every event type, present and future) stands alone',
    ),
    v.description('Omitted or ["*"]: every event type, present and future'),
  ),
);
const Description = schema(() => v.pipe(v.string(), v.maxLength(256)));

export const CreateWebhookBody = schema(() =>
  v.strictObject({
    url: Url,
    events: v.optional(Events),
    description: v.optional(Description),
  }),
);
export const UpdateWebhookBody = schema(() =>
  v.strictObject({
    url: v.optional(Url),
    events: v.optional(Events),
    description: v.optional(Description),
    status: v.optional(v.picklist(['active', 'disabled'])),
  }),
);
export const WebhookParams = schema(() =>
  v.object({ webhookId: v.pipe(v.string(), v.minLength(1), v.maxLength(128)) }),
);
export const DeliveryParams = schema(() =>
  v.object({
    webhookId: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
    deliveryId: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
  }),
);

export const WebhookView = schema(() =>
  v.object({
    webhookId: v.string(),
    url: v.string(),
    events: v.pipe(v.array(EventName), v.description('["*"] for every event type, present and future')),
    description: v.nullable(v.string()),
    status: v.picklist(['active', 'disabled']),
    disabledReason: v.optional(v.picklist(['GONE', 'FAILING', 'MANUAL'])),
    createdAt: Timestamp,
  }),
);
export const WebhookCreated = schema(() => v.object({ ...WebhookView.entries, secret: v.string() }));
export const WebhookList = schema(() => v.object({ webhooks: v.array(WebhookView), nextCursor: NextCursor }));
export const RotatedSecret = schema(() => v.object({ secret: v.string() }));
export const DeliveryList = schema(() =>
  v.object({
    deliveries: v.array(
      v.object({
        deliveryId: v.string(),
        eventId: v.string(),
        type: v.picklist(EVENT_TYPES),
        status: v.picklist(['pending', 'retrying', 'succeeded', 'failed']),
        attempts: Count,
        lastStatusCode: v.nullable(v.pipe(v.number(), v.integer())),
        lastError: v.nullable(v.string()),
        nextAttemptAt: v.nullable(Timestamp),
        createdAt: Timestamp,
      }),
    ),
    nextCursor: NextCursor,
  }),
);
export const Redelivered = schema(() => v.object({ deliveryId: v.string(), status: v.literal('pending') }));

/** `POST /webhooks/:orgId/:webhookId/test` (CONTRACT §20): a subscribed type; omitted, the first one. */
export const TestDeliveryBody = schema(() =>
  v.strictObject({
    type: v.optional(v.picklist(EVENT_TYPES, `must be one of ${EVENT_TYPES.join(', ')}`)),
  }),
);
export const TestDeliveryQueued = schema(() => v.object({ deliveryId: v.string(), eventId: v.string() }));
export const AttemptList = schema(() =>
  v.object({
    attempts: v.array(
      v.object({
        attempt: v.pipe(v.number(), v.integer(), v.minValue(1)),
        at: Timestamp,
        statusCode: v.nullable(v.pipe(v.number(), v.integer())),
        durationMs: Count,
        error: v.nullable(v.string()),
        responseBody: v.pipe(
          v.nullable(v.string()),
          v.description("The first 1 KiB of the receiver's answer, as text"),
        ),
      }),
    ),
  }),
);
