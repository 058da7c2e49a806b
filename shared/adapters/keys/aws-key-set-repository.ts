import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { DeleteParameterCommand, PutParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { DeleteCommand, type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { publicKeysKey } from '#shared/adapters/dynamodb/keys';
import type { KeySetRepository } from '#shared/domain/auth/manage-key-set';
import { type KeySetDocument, publicJwk } from '#shared/ports/key-store';

/**
 * The key set in Secrets Manager (private); its public JWKS in SSM Parameter Store (for operators and outside
 * verifiers) and in the table (for the service's own verifiers, which read it with the client they already hold).
 */
export class AwsKeySetRepository implements KeySetRepository {
  constructor(
    private readonly clients: { secrets: SecretsManagerClient; ssm: SSMClient; db: DynamoDBDocumentClient },
    private readonly names: { secretId: string; parameterName: string; tableName: string },
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
    const keys = set.keys.map(publicJwk);
    await this.clients.ssm.send(
      new PutParameterCommand({ Name: this.names.parameterName, Value: JSON.stringify({ keys }), Overwrite: true }),
    );
    await this.clients.db.send(
      new PutCommand({ TableName: this.names.tableName, Item: { ...publicKeysKey, entity: 'JWKS', keys } }),
    );
  }

  async unpublish(): Promise<void> {
    await this.clients.db.send(new DeleteCommand({ TableName: this.names.tableName, Key: publicKeysKey }));
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
