import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { StsRest } from '#shared/adapters/aws/sts-rest';
import { TenantCredentials } from '#shared/adapters/aws/tenant-credentials';
import { refuseFaultSwitchOutsideTests } from '#shared/adapters/aws/tenant-scope';
import { logger } from '#shared/observability/logger';
import { config } from './core.ts';
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
    const { region, endpoints } = config().aws;
    const sts = new StsRest({ region, endpoint: endpoints.sts, credentials: defaultProvider() });
    return new TenantCredentials({
      assume: (orgId) =>
        sts
          .assumeRole({
            roleArn,
            sessionName: `org-${orgId}`,
            durationSeconds: TENANT_SESSION_SECONDS,
            tags: { org: orgId },
          })
          .catch((error: unknown) => {
            logger.warn("tenant access: the organisation's session could not be assumed", {
              orgId,
              error: error as Error,
            });
            throw error;
          }),
    });
  });
}
