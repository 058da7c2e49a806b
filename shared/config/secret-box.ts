import { KMSClient } from '@aws-sdk/client-kms';
import { KmsSecretBox, LocalSecretBox } from '#shared/adapters/kms/secret-box';
import type { SecretBox } from '#shared/ports/secret-box';
import { awsClientOptions, config } from './core.ts';
import { instance } from './instances.ts';

/** Webhook signing secrets at rest: KMS on AWS, a local key file in the local stack. */
export function secretBox(): SecretBox {
  return instance(secretBox, () => {
    const { kmsKeyId, keyFile } = config().webhooks;
    if (kmsKeyId) return new KmsSecretBox(new KMSClient(awsClientOptions(undefined)), kmsKeyId);
    if (keyFile) return new LocalSecretBox(keyFile);
    throw new Error('WEBHOOK_SECRETS_KMS_KEY_ID or WEBHOOK_SECRETS_KEY_FILE must be set');
  });
}
