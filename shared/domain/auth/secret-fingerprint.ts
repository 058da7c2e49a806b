import { createHash } from 'node:crypto';

/**
 * Which of a credential's secrets a token was issued with, without the secret: a digest of the stored hash (itself
 * salted), carried in the token as `sfp`. After `credential rotate`, a token whose fingerprint is the previous
 * secret's is refused once the overlap ends (CONTRACT §17).
 */
export function secretFingerprint(secretHash: string): string {
  return createHash('sha256').update(secretHash).digest('base64url').slice(0, 16);
}

export const SECRET_FINGERPRINT = /^[A-Za-z0-9_-]{16}$/;
