/**
 * @wp-crm/client: typed calls for every operation of the wp-crm API (openapi-fetch over the types generated from
 * openapi.json), the union of the webhook event bodies, and `verifyWebhook` for Standard Webhooks deliveries.
 */
import createClient, { type Client, type ClientOptions, type Middleware } from 'openapi-fetch';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { components, operations, paths, webhooks } from './schema.js';

export type { components, operations, paths, webhooks };
export { WebhookVerificationError };

/** The path prefix of every operation: give `baseUrl` as the bare origin, e.g. `http://127.0.0.1:3000`. */
export const BASE_PATH = '/api/wp-crm';

export type WpCrmClient = Client<paths>;

export interface WpCrmClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** The deployment's origin (scheme, host, port), without the `/api/wp-crm` path. */
  baseUrl: string;
  /** A bearer token, or a function that returns the current one (called before every request). */
  token?: string | (() => string | Promise<string>);
}

/** A client for one deployment. Every call is typed by its path, e.g. `client.GET('/api/wp-crm/groups/{orgId}')`. */
export function createWpCrmClient(options: WpCrmClientOptions): WpCrmClient {
  const { token, ...rest } = options;
  const client = createClient<paths>(rest);
  if (token !== undefined) {
    const auth: Middleware = {
      async onRequest({ request }) {
        if (!request.headers.has('authorization')) {
          request.headers.set('authorization', `Bearer ${typeof token === 'string' ? token : await token()}`);
        }
        return request;
      },
    };
    client.use(auth);
  }
  return client;
}

/** Exchanges client credentials for an access token (`POST /token`); throws with the problem document on refusal. */
export async function issueToken(
  client: WpCrmClient,
  credentials: { clientId: string; clientSecret: string },
): Promise<TokenResponse> {
  const { data, error, response } = await client.POST('/api/wp-crm/token', { body: credentials });
  if (!data) throw new WpCrmError(response.status, error);
  return data;
}

export type TokenResponse = operations['issueToken']['responses'][200]['content']['application/json'];
export type Problem = components['schemas']['Problem'];
/** API Gateway's own answer (throttling, an oversized request): `{"message"}`, no problem document. */
export type GatewayError = components['schemas']['GatewayError'];

/** A refusal of the service, with its RFC 9457 problem document (or API Gateway's own error). */
export class WpCrmError extends Error {
  readonly status: number;
  /** The problem document; API Gateway's `{"message"}` when the gateway answered; undefined without a JSON body. */
  readonly problem: Problem | GatewayError | undefined;
  constructor(status: number, problem: unknown) {
    const code = (problem as Partial<Problem> | undefined)?.code;
    super(`wp-crm answered ${status}${code ? ` ${code}` : ''}`);
    this.name = 'WpCrmError';
    this.status = status;
    this.problem = problem as Problem | GatewayError | undefined;
  }
}

export type TestDeliveryQueued = operations['sendWebhookTest']['responses'][202]['content']['application/json'];

/**
 * Sends a test delivery to a subscription (`POST /webhooks/{orgId}/{webhookId}/test`): the documented example of
 * `type` (default: the first type it takes) with `"test": true` and a fresh event id, delivered like any other.
 * Throws WpCrmError with the problem document on refusal (404, 400 for a type it does not take, 429).
 */
export async function sendTest(
  client: WpCrmClient,
  target: { orgId: string; webhookId: string; type?: WebhookEventType },
): Promise<TestDeliveryQueued> {
  const { orgId, webhookId, type } = target;
  const { data, error, response } = await client.POST('/api/wp-crm/webhooks/{orgId}/{webhookId}/test', {
    params: { path: { orgId, webhookId } },
    body: type ? { type } : {},
  });
  if (!data) throw new WpCrmError(response.status, error);
  return data;
}

export type EventFeedPage = operations['listEvents']['responses'][200]['content']['application/json'];
/** One event of the feed: its webhook-id, type, time and webhook body (`data`, byte for byte as delivered). */
export type FeedEvent = EventFeedPage['events'][number];

export interface EventFeedOptions {
  /**
   * Only these event types (the others are passed over, and the iterator moves past them). An iterator is bound to
   * the types it was made with: resume it with the same types (in any order); others, or none, are a 400.
   */
  types?: readonly WebhookEventType[];
  /** Where to resume: a previous walk's `iterator`. None: from the oldest event kept. */
  iterator?: string;
  /** Events per request, 1–100 (default 20). */
  limit?: number;
}

/** The feed as an async iterable; `iterator` is where a later walk resumes. */
export interface EventFeedWalk extends AsyncIterable<FeedEvent> {
  /**
   * The iterator after the last page whose every event was yielded: keep it and pass it as `iterator` to resume. A
   * walk stopped in the middle of a page resumes at that page's start, so its first events come again (dedupe on
   * `eventId`, as with webhooks).
   */
  readonly iterator: string | undefined;
}

/**
 * The events feed (`GET /events/{orgId}`, CONTRACT §20): every event of the organisation, oldest first, each once,
 * following the iterator from page to page until the service says `done` (caught up; walk again later from
 * `iterator`). Throws WpCrmError with the problem document on refusal (410 ITERATOR_EXPIRED: events it had not read
 * passed the retention, or it is older than that; start again without one).
 *
 * ```ts
 * const feed = events(client, orgId, { types: ['group.created'], iterator: saved });
 * for await (const event of feed) handle(event.eventId, event.data);
 * saved = feed.iterator;
 * ```
 */
export function events(client: WpCrmClient, orgId: string, options: EventFeedOptions = {}): EventFeedWalk {
  const walk = {
    iterator: options.iterator,
    async *[Symbol.asyncIterator](): AsyncIterator<FeedEvent> {
      for (;;) {
        const { data, error, response } = await client.GET('/api/wp-crm/events/{orgId}', {
          params: {
            path: { orgId },
            query: {
              ...(walk.iterator ? { iterator: walk.iterator } : {}),
              ...(options.types ? { types: options.types.join(',') } : {}),
              ...(options.limit ? { limit: options.limit } : {}),
            },
          },
        });
        if (!data) throw new WpCrmError(response.status, error);
        for (const event of data.events) yield event;
        walk.iterator = data.iterator;
        if (data.done) return;
      }
    },
  };
  return walk;
}

/** The event types the service delivers. */
export type WebhookEventType = keyof webhooks;

/** The body of a delivery of one event type. */
export type WebhookEventOf<T extends WebhookEventType> = webhooks[T]['post'] extends {
  requestBody: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;

/** Any delivery's body: switch on `type` to narrow it. */
export type WebhookEvent = { [T in WebhookEventType]: WebhookEventOf<T> }[WebhookEventType];

/**
 * Verifies a Standard Webhooks delivery and returns its event: the HMAC signature over
 * `<webhook-id>.<webhook-timestamp>.<raw body>` with the subscription's `whsec_` secret, and a timestamp within
 * five minutes. Pass the raw body exactly as received. During a secret rotation the service signs with both
 * secrets, so either verifies; give several secrets to accept any of them. Throws `WebhookVerificationError`.
 * Deduplicate on the `webhook-id` header: a retry or a redelivery carries the same one.
 */
export function verifyWebhook(
  secret: string | readonly string[],
  body: string,
  headers: Headers | Record<string, string | string[] | undefined>,
): WebhookEvent {
  const wanted = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;
  const read = (name: string) => {
    if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
    const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
    return Array.isArray(entry) ? entry.join(' ') : entry;
  };
  const signed = Object.fromEntries(wanted.map((name) => [name, read(name) ?? '']));
  let failure: unknown = new WebhookVerificationError('No secret given');
  for (const candidate of typeof secret === 'string' ? [secret] : secret) {
    try {
      return new Webhook(candidate).verify(body, signed) as WebhookEvent;
    } catch (error) {
      failure = error;
    }
  }
  throw failure;
}
