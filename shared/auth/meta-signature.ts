import { createHmac, timingSafeEqual } from 'node:crypto';

const HEADER = /^sha256=([0-9a-f]{64})$/i;

/**
 * Verifies Meta's X-Hub-Signature-256 (HMAC-SHA256 of the exact body bytes, keyed by the app secret). Any other
 * shape (missing, sha1=, wrong length, several values) is simply invalid; lengths are equal before timingSafeEqual.
 */
export function verifyMetaSignature(body: Buffer, header: string | undefined, appSecret: string): boolean {
  const match = header ? HEADER.exec(header.trim()) : null;
  if (!match) return false;
  const expected = createHmac('sha256', appSecret).update(body).digest();
  const given = Buffer.from(match[1]!, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
