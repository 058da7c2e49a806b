import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { AwsKeySetRepository } from '#shared/adapters/keys/aws-key-set-repository';
import { ensureKeySet, type KeyRotationStep, rotateKeySet } from '#shared/domain/auth/manage-key-set';

type StackEvent = Pick<CloudFormationCustomResourceEvent, 'RequestType'> & {
  PhysicalResourceId?: string;
  ResourceProperties?: { RemoveOnDelete?: string };
};

const clients = {
  secrets: new SecretsManagerClient({}),
  ssm: new SSMClient({}),
  db: DynamoDBDocumentClient.from(new DynamoDBClient({})),
};
const repository = () =>
  new AwsKeySetRepository(clients, {
    secretId: process.env.JWT_SIGNING_SECRET_ID ?? '',
    parameterName: process.env.JWT_PUBLIC_KEYS_PARAMETER ?? '',
    tableName: process.env.TABLE_NAME ?? '',
  });

/**
 * The JWT key set's keeper: the stack's custom resource (Create/Update publish; Delete removes the published keys of
 * a disposable stack, and keeps them otherwise), or a rotation step.
 */
export const handler = async (event: StackEvent | KeyRotationStep) => {
  if (!('RequestType' in event)) {
    const set = await rotateKeySet(repository(), event);
    return { activeKid: set.activeKid, kids: set.keys.map((key) => key.kid) };
  }
  if (event.RequestType === 'Delete') {
    if (event.ResourceProperties?.RemoveOnDelete === 'true') await repository().unpublish();
    return { PhysicalResourceId: event.PhysicalResourceId };
  }
  const set = await ensureKeySet(repository());
  return { PhysicalResourceId: 'jwt-key-set', Data: { ActiveKid: set.activeKid } };
};
