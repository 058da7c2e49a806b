import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { JWK } from 'jose';
import { type KeySetDocument, type KeyStore, publicJwk } from '#shared/ports/key-store';
import { MIN_FORCED_REFRESH_MS, SECRET_MAX_AGE_SECONDS } from './max-age.ts';

/**
 * AWS, the token function: the private key set in Secrets Manager, reused for SECRET_MAX_AGE_SECONDS, so that an
 * `activate` step of a rotation makes warm token functions sign with the new key within 5 minutes.
 */
export class SecretsManagerKeySetStore implements KeyStore {
  readonly #provider: SecretsProvider;
  #forceNext = false;
  #forcedAt = Number.NEGATIVE_INFINITY;

  constructor(
    client: SecretsManagerClient,
    private readonly secretId: string,
    private readonly nowMs: () => number = Date.now,
  ) {
    this.#provider = new SecretsProvider({ awsSdkV3Client: client });
  }

  async signingKey(): Promise<{ kid: string; privateJwk: JWK }> {
    const set = await this.#read();
    const privateJwk = set.keys.find((key) => key.kid === set.activeKid);
    if (!privateJwk) throw new Error('the active signing key is missing from the key set');
    return { kid: set.activeKid, privateJwk };
  }

  async verificationKeys(): Promise<JWK[]> {
    return (await this.#read()).keys.map(publicJwk);
  }

  async refresh(): Promise<void> {
    const now = this.nowMs();
    if (now - this.#forcedAt < MIN_FORCED_REFRESH_MS) return;
    this.#forcedAt = now;
    this.#forceNext = true;
  }

  async #read(): Promise<KeySetDocument> {
    const forceFetch = this.#forceNext;
    this.#forceNext = false;
    const set = (await this.#provider.get(this.secretId, {
      maxAge: SECRET_MAX_AGE_SECONDS,
      transform: 'json',
      forceFetch,
    })) as KeySetDocument | undefined;
    if (!set?.keys) throw new Error('the signing key set is empty');
    return set;
  }
}
