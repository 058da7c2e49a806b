import { readFileSync } from 'node:fs';
import type { JWK } from 'jose';
import { type KeySetDocument, type KeyStore, publicJwk } from '#shared/ports/key-store';

/** Local stack: the key set lives in a JSON file in the data dir, generated once by the stack. */
export class FileKeyStore implements KeyStore {
  #set: KeySetDocument | undefined;

  constructor(private readonly path: string) {}

  async signingKey(): Promise<{ kid: string; privateJwk: JWK }> {
    const set = this.#load();
    const privateJwk = set.keys.find((key) => key.kid === set.activeKid);
    if (!privateJwk) throw new Error('the active signing key is missing from the key set');
    return { kid: set.activeKid, privateJwk };
  }

  async verificationKeys(): Promise<JWK[]> {
    return this.#load().keys.map(publicJwk);
  }

  async refresh(): Promise<void> {
    this.#set = undefined;
  }

  #load(): KeySetDocument {
    this.#set ??= JSON.parse(readFileSync(this.path, 'utf8')) as KeySetDocument;
    return this.#set;
  }
}
