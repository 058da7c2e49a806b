import { SSMProvider } from '@aws-lambda-powertools/parameters/ssm';
import type { SSMClient } from '@aws-sdk/client-ssm';
import type { JWK } from 'jose';
import type { KeyStore } from '#shared/ports/key-store';
import { MIN_FORCED_REFRESH_MS, PUBLIC_KEYS_MAX_AGE_SECONDS } from './max-age.ts';

/**
 * AWS, verifying functions: the public JWKS from its SSM parameter (never the private key set). Reused for
 * PUBLIC_KEYS_MAX_AGE_SECONDS; a token naming an unknown `kid` forces a re-read, at most once a minute, which is how
 * warm functions learn a newly published key at once.
 */
export class SsmPublicKeyStore implements KeyStore {
  readonly #provider: SSMProvider;
  #forceNext = false;
  #forcedAt = Number.NEGATIVE_INFINITY;

  constructor(
    client: SSMClient,
    private readonly parameterName: string,
    private readonly nowMs: () => number = Date.now,
  ) {
    this.#provider = new SSMProvider({ awsSdkV3Client: client });
  }

  signingKey(): Promise<{ kid: string; privateJwk: JWK }> {
    return Promise.reject(new Error('this function only verifies tokens: it holds no signing key'));
  }

  async verificationKeys(): Promise<JWK[]> {
    const forceFetch = this.#forceNext;
    this.#forceNext = false;
    const document = (await this.#provider.get(this.parameterName, {
      maxAge: PUBLIC_KEYS_MAX_AGE_SECONDS,
      transform: 'json',
      forceFetch,
    })) as { keys?: JWK[] } | undefined;
    return document?.keys ?? [];
  }

  async refresh(): Promise<void> {
    const now = this.nowMs();
    if (now - this.#forcedAt < MIN_FORCED_REFRESH_MS) return;
    this.#forcedAt = now;
    this.#forceNext = true;
  }
}
