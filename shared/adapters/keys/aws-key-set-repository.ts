import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { DeleteParameterCommand, PutParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import type { KeySetRepository } from '#shared/domain/auth/manage-key-set';
import { type KeySetDocument, publicJwk } from '#shared/ports/key-store';

/** The key set in Secrets Manager (private) and SSM Parameter Store (public JWKS). */
export class AwsKeySetRepository implements KeySetRepository {
  constructor(
    private readonly clients: { secrets: SecretsManagerClient; ssm: SSMClient },
    private readonly names: { secretId: string; parameterName: string },
  ) {}

  async read(): Promise<KeySetDocument | undefined> {
    const { SecretString } = await this.clients.secrets.send(
      new GetSecretValueCommand({ SecretId: this.names.secretId }),
    );
    try {
      const set = JSON.parse(SecretString ?? '') as Partial<KeySetDocument>;
      return Array.isArray(set.keys) && set.keys.some((key) => key.kid === set.activeKid)
        ? (set as KeySetDocument)
        : undefined;
    } catch {
      return undefined; // the random value the secret was created with
    }
  }

  async publish(set: KeySetDocument): Promise<void> {
    const jwks = JSON.stringify({ keys: set.keys.map(publicJwk) });
    await this.clients.ssm.send(
      new PutParameterCommand({ Name: this.names.parameterName, Value: jwks, Overwrite: true }),
    );
  }

  async unpublish(): Promise<void> {
    try {
      await this.clients.ssm.send(new DeleteParameterCommand({ Name: this.names.parameterName }));
    } catch (error) {
      if ((error as Error).name !== 'ParameterNotFound') throw error;
    }
  }

  async store(set: KeySetDocument): Promise<void> {
    await this.clients.secrets.send(
      new PutSecretValueCommand({ SecretId: this.names.secretId, SecretString: JSON.stringify(set) }),
    );
  }
}
