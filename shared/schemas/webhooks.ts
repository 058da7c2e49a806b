import * as v from 'valibot';
import { ALL_EVENTS, EVENT_TYPES } from '#shared/events/catalog';
import { Count, NextCursor, Timestamp } from './common.ts';

const Url = v.pipe(v.string(), v.minLength(1), v.maxLength(2048));
const EventName = v.picklist([...EVENT_TYPES, ALL_EVENTS], 'must be one of the event types, or *');
const Events = v.pipe(
  v.array(EventName),
  v.maxLength(EVENT_TYPES.length),
  v.check(
    (events) => !events.includes(ALL_EVENTS) || events.length === 1,
    '"*" (every event type, present and future) stands alone',
  ),
  v.description('Omitted or ["*"]: every event type, present and future'),
);
const Description = v.pipe(v.string(), v.maxLength(256));

export const CreateWebhookBody = v.strictObject({
  url: Url,
  events: v.optional(Events),
  description: v.optional(Description),
});
export const UpdateWebhookBody = v.strictObject({
  url: v.optional(Url),
  events: v.optional(Events),
  description: v.optional(Description),
  status: v.optional(v.picklist(['active', 'disabled'])),
});
export const WebhookParams = v.object({ webhookId: v.pipe(v.string(), v.minLength(1), v.maxLength(128)) });
export const DeliveryParams = v.object({
  webhookId: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
  deliveryId: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
});

export const WebhookView = v.object({
  webhookId: v.string(),
  url: v.string(),
  events: v.pipe(v.array(EventName), v.description('["*"] for every event type, present and future')),
  description: v.nullable(v.string()),
  status: v.picklist(['active', 'disabled']),
  disabledReason: v.optional(v.picklist(['GONE', 'FAILING', 'MANUAL'])),
  createdAt: Timestamp,
});
export const WebhookCreated = v.object({ ...WebhookView.entries, secret: v.string() });
export const WebhookList = v.object({ webhooks: v.array(WebhookView), nextCursor: NextCursor });
export const RotatedSecret = v.object({ secret: v.string() });
export const DeliveryList = v.object({
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
});
export const Redelivered = v.object({ deliveryId: v.string(), status: v.literal('pending') });
export const AttemptList = v.object({
  attempts: v.array(
    v.object({
      attempt: v.pipe(v.number(), v.integer(), v.minValue(1)),
      at: Timestamp,
      statusCode: v.nullable(v.pipe(v.number(), v.integer())),
      durationMs: Count,
      error: v.nullable(v.string()),
      responseBody: v.pipe(v.nullable(v.string()), v.description("The first 1 KiB of the receiver's answer, as text")),
    }),
  ),
});
