import type { JWK } from 'jose';
import { newKeySet } from '#shared/auth/key-set';
import { type KeySetDocument, type KeyStore, publicJwk } from '#shared/ports/key-store';

/** An in-memory KeyStore whose key set a test can swap, counting refreshes. */
export class MemoryKeyStore implements KeyStore {
  refreshes = 0;
  constructor(public set: KeySetDocument) {}

  static async create(): Promise<MemoryKeyStore> {
    return new MemoryKeyStore(await newKeySet());
  }

  async signingKey(): Promise<{ kid: string; privateJwk: JWK }> {
    const privateJwk = this.set.keys.find((key) => key.kid === this.set.activeKid)!;
    return { kid: this.set.activeKid, privateJwk };
  }

  async verificationKeys(): Promise<JWK[]> {
    return this.set.keys.map(publicJwk);
  }

  async refresh(): Promise<void> {
    this.refreshes += 1;
  }
}
