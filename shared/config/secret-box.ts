import { KMSClient } from '@aws-sdk/client-kms';
import { routedByOrganisation } from '#shared/adapters/aws/tenant-clients';
import { KmsSecretBox, LocalSecretBox } from '#shared/adapters/kms/secret-box';
import type { SecretBox } from '#shared/ports/secret-box';
import { awsClientOptions, config } from './core.ts';
import { instance } from './instances.ts';
import { tenantCredentials } from './tenant.ts';

/** Webhook signing secrets at rest: KMS on AWS, a local key file in the local stack. */
export function secretBox(): SecretBox {
  return instance(secretBox, () => {
    const { kmsKeyId, keyFile } = config().webhooks;
    if (kmsKeyId) return new KmsSecretBox(kmsClient(), kmsKeyId);
    if (keyFile) return new LocalSecretBox(keyFile);
    throw new Error('WEBHOOK_SECRETS_KMS_KEY_ID or WEBHOOK_SECRETS_KEY_FILE must be set');
  });
}

/** Webhook secrets are sealed and opened with their organisation's credentials where the stack has the role (§25). */
function kmsClient(): KMSClient {
  const client = new KMSClient(awsClientOptions(undefined));
  const tenant = tenantCredentials();
  if (!tenant) return client;
  const { requestHandler } = client.config;
  return routedByOrganisation(
    client,
    tenant,
    (credentials) => new KMSClient({ ...awsClientOptions(undefined), credentials, requestHandler }),
  );
}
