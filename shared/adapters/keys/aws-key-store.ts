import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import type { JWK } from 'jose';
import { type KeySetDocument, type KeyStore, publicJwk } from '#shared/ports/key-store';

const MIN_REFRESH_INTERVAL_MS = 60_000;

/**
 * AWS: the private key set is a Secrets Manager secret that only the token function may read; the public JWKS is an
 * SSM parameter that every verifying function reads once per cold start, and again (at most once a minute) when a
 * token names an unknown `kid`, which is how warm functions learn a newly published key.
 */
export class AwsKeyStore implements KeyStore {
  #set: Promise<KeySetDocument> | undefined;
  #public: Promise<JWK[]> | undefined;
  #refreshedAt = 0;

  constructor(
    private readonly clients: { secrets?: SecretsManagerClient; ssm?: SSMClient },
    private readonly names: { signingSecretId?: string; publicKeysParameter?: string },
  ) {}

  async signingKey(): Promise<{ kid: string; privateJwk: JWK }> {
    this.#set ??= this.#readSecret();
    const set = await this.#set;
    const privateJwk = set.keys.find((key) => key.kid === set.activeKid);
    if (!privateJwk) throw new Error('the active signing key is missing from the key set');
    return { kid: set.activeKid, privateJwk };
  }

  async verificationKeys(): Promise<JWK[]> {
    this.#public ??= this.#readPublic();
    return this.#public;
  }

  async refresh(): Promise<void> {
    if (Date.now() - this.#refreshedAt < MIN_REFRESH_INTERVAL_MS) return;
    this.#refreshedAt = Date.now();
    this.#public = undefined;
    this.#set = undefined;
  }

  async #readSecret(): Promise<KeySetDocument> {
    const { secrets } = this.clients;
    if (!secrets || !this.names.signingSecretId) throw new Error('JWT_SIGNING_SECRET_ID is not configured');
    const result = await secrets.send(new GetSecretValueCommand({ SecretId: this.names.signingSecretId }));
    return JSON.parse(result.SecretString ?? '{}') as KeySetDocument;
  }

  async #readPublic(): Promise<JWK[]> {
    const { ssm } = this.clients;
    if (ssm && this.names.publicKeysParameter) {
      const result = await ssm.send(new GetParameterCommand({ Name: this.names.publicKeysParameter }));
      return (JSON.parse(result.Parameter?.Value ?? '{"keys":[]}') as { keys: JWK[] }).keys;
    }
    return (await this.#readSecret()).keys.map(publicJwk);
  }
}
