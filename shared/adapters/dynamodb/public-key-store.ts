import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { JWK } from 'jose';
import { MIN_FORCED_REFRESH_MS, PUBLIC_KEYS_MAX_AGE_SECONDS } from '#shared/adapters/keys/max-age';
import type { KeyStore } from '#shared/ports/key-store';
import { publicKeysKey } from './keys.ts';

/**
 * AWS, verifying functions: the public JWKS from its item in the table, which the key manager writes with the SSM
 * parameter. Reused for PUBLIC_KEYS_MAX_AGE_SECONDS; a failed read is never kept; a token naming an unknown `kid`
 * forces a re-read, at most once a minute, which is how warm functions learn a newly published key at once.
 */
export class DynamoPublicKeyStore implements KeyStore {
  #cached: { keys: JWK[]; untilMs: number } | undefined;
  #forceNext = false;
  #forcedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly nowMs: () => number = Date.now,
  ) {}

  signingKey(): Promise<{ kid: string; privateJwk: JWK }> {
    return Promise.reject(new Error('this function only verifies tokens: it holds no signing key'));
  }

  async verificationKeys(): Promise<JWK[]> {
    const now = this.nowMs();
    if (this.#cached && now < this.#cached.untilMs && !this.#forceNext) return this.#cached.keys;
    this.#forceNext = false;
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: publicKeysKey }));
    const keys = Array.isArray(Item?.keys) ? (Item.keys as JWK[]) : [];
    this.#cached = { keys, untilMs: now + PUBLIC_KEYS_MAX_AGE_SECONDS * 1000 };
    return keys;
  }

  async refresh(): Promise<void> {
    const now = this.nowMs();
    if (now - this.#forcedAt < MIN_FORCED_REFRESH_MS) return;
    this.#forcedAt = now;
    this.#forceNext = true;
  }
}
