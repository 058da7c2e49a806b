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

/** The app secret the local stack uses when none is set; a deployment refuses it (issue 19.4). */
export const LOCAL_DEVELOPMENT_APP_SECRET = 'local-whatsapp-app-secret-for-development-only';

/** Values that mark a secret nobody set: templates, docs and tutorials ship them. */
const PLACEHOLDERS = new Set([
  'setme',
  'changeme',
  'changeit',
  'placeholder',
  'secret',
  'appsecret',
  'yourappsecret',
  'whatsappappsecret',
  'metaappsecret',
  'todo',
  'tbd',
  'none',
  'null',
  'undefined',
  'default',
  'example',
  'test',
  'password',
]);

/**
 * Meta's app secret is usable only when it is set, at least 32 characters (Meta's are 32 hex digits) and not a
 * placeholder, alone or repeated (`changeme` eight times is still one). Anything else must not verify signatures.
 * The local stack's own default is usable only on the local stack (`localStack`): it is in this repository.
 */
export function isUsableAppSecret(appSecret: string | undefined, localStack = false): appSecret is string {
  if (!appSecret || appSecret.trim().length < 32) return false;
  if (appSecret === LOCAL_DEVELOPMENT_APP_SECRET) return localStack;
  const normalized = appSecret.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (new Set(normalized).size <= 1) return false;
  for (const placeholder of PLACEHOLDERS) {
    if (normalized === placeholder || normalized.replaceAll(placeholder, '') === '') return false;
  }
  return true;
}
