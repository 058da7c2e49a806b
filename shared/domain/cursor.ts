import { createHash } from 'node:crypto';
import { ValidationError } from '#shared/errors';

/**
 * Opaque list cursors (CONTRACT §10): the store's position plus a hash of what the listing is bound to (the
 * organisation, the listing and its filters). A cursor used with another organisation or other filters, or
 * altered in any way, is a 400 at `#/query/cursor`.
 */
const invalid = () => new ValidationError([{ pointer: '#/query/cursor', message: 'the cursor is not valid here' }]);

const bindingHash = (binding: unknown) =>
  createHash('sha256').update(JSON.stringify(binding)).digest('base64url').slice(0, 16);

export function encodeCursor(position: Record<string, unknown> | undefined, binding: unknown): string | null {
  if (!position) return null;
  return Buffer.from(JSON.stringify({ p: position, b: bindingHash(binding) })).toString('base64url');
}

export function decodeCursor(cursor: string | undefined, binding: unknown): Record<string, unknown> | undefined {
  if (cursor === undefined) return undefined;
  let decoded: unknown;
  try {
    const text = Buffer.from(cursor, 'base64url').toString('utf8');
    if (Buffer.from(text).toString('base64url') !== cursor) throw invalid();
    decoded = JSON.parse(text);
  } catch {
    throw invalid();
  }
  if (typeof decoded !== 'object' || decoded === null) throw invalid();
  const { p, b } = decoded as { p?: unknown; b?: unknown };
  if (b !== bindingHash(binding) || typeof p !== 'object' || p === null || Array.isArray(p)) throw invalid();
  return p as Record<string, unknown>;
}
