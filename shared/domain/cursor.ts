import { createHmac, timingSafeEqual } from 'node:crypto';
import { ValidationError } from '#shared/errors';

/**
 * Opaque list cursors (CONTRACT §10, §13): the store's position and an HMAC, under a server-side key, of that
 * position together with what the listing is bound to (the organisation, the listing and its filters). A cursor
 * used with another organisation or other filters, altered, truncated or made by anyone but the service is a 400
 * at `#/query/cursor`; only positions the store handed out ever reach it.
 */
const invalidAt = (pointer = '#/query/cursor') =>
  new ValidationError([{ pointer, message: `the ${pointer.slice('#/query/'.length)} is not valid here` }]);

const MAC_BYTES = 16;

const mac = (key: Uint8Array, position: string, binding: unknown) =>
  createHmac('sha256', key)
    .update(JSON.stringify(binding))
    .update('\0')
    .update(position)
    .digest()
    .subarray(0, MAC_BYTES);

export function encodeCursor(
  key: Uint8Array,
  position: Record<string, unknown> | undefined,
  binding: unknown,
): string | null {
  if (!position) return null;
  const text = JSON.stringify(position);
  return `${Buffer.from(text).toString('base64url')}.${mac(key, text, binding).toString('base64url')}`;
}

export function decodeCursor(
  key: Uint8Array,
  cursor: string | undefined,
  binding: unknown,
  /** Where a refusal points: the list's `cursor`, or the event feed's `iterator`. */
  pointer?: string,
): Record<string, unknown> | undefined {
  if (cursor === undefined) return undefined;
  const invalid = () => invalidAt(pointer);
  const [encoded, tag, ...rest] = cursor.split('.');
  if (!encoded || !tag || rest.length > 0) throw invalid();
  const given = Buffer.from(tag, 'base64url');
  const text = Buffer.from(encoded, 'base64url').toString('utf8');
  // Canonical encodings only: a base64url alias of the same bytes is a different (altered) cursor.
  if (given.toString('base64url') !== tag || Buffer.from(text).toString('base64url') !== encoded) throw invalid();
  const expected = mac(key, text, binding);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  let position: unknown;
  try {
    position = JSON.parse(text);
  } catch {
    throw invalid();
  }
  if (typeof position !== 'object' || position === null || Array.isArray(position)) throw invalid();
  return position as Record<string, unknown>;
}
