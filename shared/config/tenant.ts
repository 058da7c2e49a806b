import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { TenantCredentials } from '#shared/adapters/aws/tenant-credentials';
import { refuseFaultSwitchOutsideTests } from '#shared/adapters/aws/tenant-scope';
import { awsClientOptions, config } from './core.ts';
import { instance } from './instances.ts';

/** One session of the tenant-access role: an hour, the longest a role assumed by a role may last. */
export const TENANT_SESSION_SECONDS = 3600;

/**
 * The organisations' credentials (CONTRACT §25), when the stack gave the function its tenant-access role
 * (`TENANT_ACCESS_ROLE_ARN`); undefined otherwise (`npm start`, where one process plays every function and no IAM
 * stands between them), and every call keeps the function's own credentials.
 */
export function tenantCredentials(): TenantCredentials | undefined {
  return instance(tenantCredentials, () => {
    refuseFaultSwitchOutsideTests();
    const roleArn = config().aws.tenantAccessRoleArn;
    if (!roleArn) return undefined;
    const sts = new STSClient(awsClientOptions(undefined));
    return new TenantCredentials({
      assume: async (orgId) => {
        const { Credentials: c } = await sts.send(
          new AssumeRoleCommand({
            RoleArn: roleArn,
            RoleSessionName: `org-${orgId}`,
            DurationSeconds: TENANT_SESSION_SECONDS,
            Tags: [{ Key: 'org', Value: orgId }],
          }),
        );
        if (!c?.AccessKeyId || !c.SecretAccessKey || !c.SessionToken || !c.Expiration) {
          throw new Error('AssumeRole answered without credentials');
        }
        return {
          accessKeyId: c.AccessKeyId,
          secretAccessKey: c.SecretAccessKey,
          sessionToken: c.SessionToken,
          expiration: c.Expiration,
        };
      },
    });
  });
}
