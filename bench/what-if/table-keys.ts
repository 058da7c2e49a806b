import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '#shared/config/core';
import { documentClient } from '#shared/config/dynamodb';
import { instance } from '#shared/config/instances';
import type { KeyStore } from '#shared/ports/key-store';

/**
 * What-if for P1 only, never deployed: the public JWKS read from an item in the service table with the DynamoDB
 * client every token-verifying function already has, instead of from SSM.
 */
export function verificationKeyStore(): KeyStore {
  return instance(verificationKeyStore, () => {
    let keys: Promise<KeyStore['verificationKeys'] extends () => Promise<infer K> ? K : never> | undefined;
    const read = async () => {
      const { Item } = await documentClient().send(
        new GetCommand({ TableName: config().aws.tableName, Key: { PK: 'JWKS', SK: 'PUBLIC' } }),
      );
      return (Item?.keys ?? []) as Awaited<ReturnType<KeyStore['verificationKeys']>>;
    };
    return {
      signingKey: () => Promise.reject(new Error('verification only')),
      verificationKeys: () => {
        keys ??= read();
        return keys;
      },
      refresh: async () => {
        keys = undefined;
      },
    };
  });
}
