import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { ulid } from 'ulid';
import type { KeySetDocument } from '#shared/ports/key-store';

/** Generates a fresh extractable ES256 private JWK with a new `kid`. */
export async function generateSigningJwk(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: `k_${ulid()}`, alg: 'ES256', use: 'sig' };
}

export async function newKeySet(): Promise<KeySetDocument> {
  const key = await generateSigningJwk();
  return { activeKid: key.kid!, keys: [key] };
}

/** Step 1 of a rotation: publish a new key beside the old ones; the old one keeps signing. */
export async function addKey(set: KeySetDocument): Promise<KeySetDocument> {
  return { ...set, keys: [...set.keys, await generateSigningJwk()] };
}

/** Step 2: sign with the given key (already published for at least the verifiers' refresh interval). */
export function activateKey(set: KeySetDocument, kid: string): KeySetDocument {
  if (!set.keys.some((key) => key.kid === kid)) throw new Error(`no key ${kid} in the key set`);
  return { ...set, activeKid: kid };
}

/** Step 3: drop a retired key once every token it signed has expired. */
export function retireKey(set: KeySetDocument, kid: string): KeySetDocument {
  if (kid === set.activeKid) throw new Error('the active signing key cannot be retired');
  return { ...set, keys: set.keys.filter((key) => key.kid !== kid) };
}
