import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { asService } from '#shared/adapters/aws/tenant-scope';
import type { WhatsAppSecrets, WhatsAppSecretValues } from '#shared/ports/whatsapp-secrets';
import { SECRET_MAX_AGE_SECONDS } from './max-age.ts';

/**
 * Meta's app secret and webhook verify token: from the environment locally, from one Secrets Manager secret on
 * AWS, reused for SECRET_MAX_AGE_SECONDS (a rotated app secret reaches warm functions within 5 minutes; a failed
 * read is not cached, the next call reads again).
 */
export class SecretsManagerWhatsAppSecrets implements WhatsAppSecrets {
  #provider: SecretsProvider | undefined;

  constructor(
    private readonly fallback: WhatsAppSecretValues,
    private readonly secretId: string | undefined,
    private readonly secrets: () => SecretsManagerClient,
  ) {}

  async get(): Promise<WhatsAppSecretValues> {
    if (!this.secretId) return this.fallback;
    this.#provider ??= new SecretsProvider({ awsSdkV3Client: this.secrets() });
    const provider = this.#provider;
    // Meta's app secret belongs to no organisation: the function's own role reads it, whoever it acts for.
    const values = await asService(() =>
      provider.get(this.secretId!, { maxAge: SECRET_MAX_AGE_SECONDS, transform: 'json' }),
    );
    return (values ?? {}) as unknown as WhatsAppSecretValues;
  }
}
