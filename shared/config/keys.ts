import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoPublicKeyStore } from '#shared/adapters/dynamodb/public-key-store';
import { AwsKeySetRepository } from '#shared/adapters/keys/aws-key-set-repository';
import { SecretsManagerCursorKey } from '#shared/adapters/keys/cursor-key';
import { FileKeyStore } from '#shared/adapters/keys/file-key-store';
import { SecretsManagerKeySetStore } from '#shared/adapters/keys/secrets-manager-key-set';
import type { KeySetRepository } from '#shared/domain/auth/manage-key-set';
import type { CursorKey } from '#shared/ports/cursor-key';
import type { KeyStore } from '#shared/ports/key-store';
import { config } from './core.ts';
import { documentClient } from './dynamodb.ts';
import { instance } from './instances.ts';

/**
 * The keys that verify access tokens: on AWS the public JWKS item in the table (every token-verifying function and
 * the JWKS endpoint read it with the DynamoDB client they already hold), locally the stack's key file.
 */
export function verificationKeyStore(): KeyStore {
  return instance(verificationKeyStore, () => {
    const { jwt, aws } = config();
    if (jwt.keysFile) return new FileKeyStore(jwt.keysFile);
    return new DynamoPublicKeyStore(documentClient(), aws.tableName);
  });
}

/** The keys that sign access tokens: on AWS the private key set in Secrets Manager (only the token function). */
export function signingKeyStore(): KeyStore {
  return instance(signingKeyStore, () => {
    const { jwt, aws } = config();
    if (jwt.keysFile) return new FileKeyStore(jwt.keysFile);
    if (!jwt.signingSecretId) throw new Error('JWT_SIGNING_SECRET_ID is not configured');
    return new SecretsManagerKeySetStore(new SecretsManagerClient({ region: aws.region }), jwt.signingSecretId);
  });
}

/** The key that authenticates list cursors and iterators: a generated secret on AWS (only the listing functions). */
export function cursorKey(): CursorKey {
  return instance(cursorKey, () => {
    const { cursors, aws } = config();
    return new SecretsManagerCursorKey(
      { secretId: cursors.keySecretId, material: cursors.signingKey, previousMaterial: cursors.previousSigningKey },
      () => new SecretsManagerClient({ region: aws.region }),
    );
  });
}

/** The key keeper's view of the key set: the secret, the SSM parameter and the table item (only jwt-keys). */
export function keySetRepository(): KeySetRepository {
  return instance(keySetRepository, () => {
    const { jwt, aws } = config();
    return new AwsKeySetRepository(
      {
        secrets: new SecretsManagerClient({ region: aws.region }),
        ssm: new SSMClient({ region: aws.region }),
        db: DynamoDBDocumentClient.from(new DynamoDBClient({ region: aws.region })),
      },
      { secretId: jwt.signingSecretId ?? '', parameterName: jwt.publicKeysParameter ?? '', tableName: aws.tableName },
    );
  });
}
