import type { JWK } from 'jose';

/**
 * The ES256 keys that sign and verify access tokens. During a rotation several verification keys are active, and
 * exactly one signs. Private material never leaves `signingKey()`.
 */
export interface KeyStore {
  signingKey(): Promise<{ kid: string; privateJwk: JWK }>;
  /** Public JWKs (each with `kid`), as served at /.well-known/jwks.json. */
  verificationKeys(): Promise<JWK[]>;
  /** Reloads the keys, e.g. when a token names a `kid` not seen yet. Implementations rate-limit it. */
  refresh(): Promise<void>;
}

/** The stored form of the key set: private JWKs and the id of the one that signs. */
export interface KeySetDocument {
  activeKid: string;
  keys: JWK[];
}

export function publicJwk(privateJwk: JWK): JWK {
  const { kty, crv, x, y, kid } = privateJwk;
  return { kty, crv, x, y, kid, alg: 'ES256', use: 'sig' };
}
