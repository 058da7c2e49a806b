import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks `v1` signing (CONTRACT §7): HMAC-SHA256 over `<id>.<timestamp>.<body>`, base64, keyed by the
 * bytes after `whsec_`. Receivers verify with the `standardwebhooks` package or any compliant library.
 */
const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

/** One delivery attempt: the event id (stable across retries), this attempt's Unix seconds, the exact body sent. */
export interface WebhookMessage {
  id: string;
  timestamp: number;
  body: string;
}

export type WebhookHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'content-type': 'application/json';
};

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/**
 * The `webhook-signature` header value: one `v1,<base64>` per secret, space-separated, so that during a rotation
 * a receiver holding either the old or the new secret can verify.
 */
export function signWebhook(message: WebhookMessage, secrets: readonly string[]): string {
  // The spec forbids `.` in the id and requires an integer timestamp: either would make the signed content ambiguous.
  if (message.id.includes('.') || message.id === '') throw new Error('webhook id must be non-empty and contain no "."');
  if (!Number.isSafeInteger(message.timestamp)) throw new Error('webhook timestamp must be integer Unix seconds');
  if (secrets.length === 0) throw new Error('at least one webhook secret is required');
  const content = `${message.id}.${message.timestamp}.${message.body}`;
  return secrets
    .map((secret) => `v1,${createHmac('sha256', secretKey(secret)).update(content).digest('base64')}`)
    .join(' ');
}

/** Every header of a delivery attempt, ready for `WebhookSender.send`. */
export function webhookHeaders(message: WebhookMessage, secrets: readonly string[]): WebhookHeaders {
  return {
    'webhook-id': message.id,
    'webhook-timestamp': String(message.timestamp),
    'webhook-signature': signWebhook(message, secrets),
    'content-type': 'application/json',
  };
}

function secretKey(secret: string): Buffer {
  const key = secret.startsWith(SECRET_PREFIX) ? Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64') : undefined;
  // A short or unprefixed key is a configuration bug; signing with it would silently weaken every delivery.
  if (!key || key.length < 24) throw new Error('webhook secret must be whsec_ + base64 of at least 24 bytes');
  return key;
}
