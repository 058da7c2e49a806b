import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { WhatsAppSecrets, WhatsAppSecretValues } from '#shared/ports/whatsapp-secrets';

/**
 * Meta's app secret and webhook verify token: from the environment locally, from one Secrets Manager secret on
 * AWS (read once per cold start, retried on the next call if that read failed).
 */
export class SecretsManagerWhatsAppSecrets implements WhatsAppSecrets {
  #values: Promise<WhatsAppSecretValues> | undefined;

  constructor(
    private readonly fallback: WhatsAppSecretValues,
    private readonly secretId: string | undefined,
    private readonly secrets: () => SecretsManagerClient,
  ) {}

  get(): Promise<WhatsAppSecretValues> {
    if (!this.secretId) return Promise.resolve(this.fallback);
    this.#values ??= this.secrets()
      .send(new GetSecretValueCommand({ SecretId: this.secretId }))
      .then((result) => JSON.parse(result.SecretString ?? '{}') as WhatsAppSecretValues);
    this.#values.catch(() => {
      this.#values = undefined;
    });
    return this.#values;
  }
}
