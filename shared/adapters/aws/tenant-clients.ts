import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import type { TenantCredentials } from './tenant-credentials.ts';
import { actingOrg, requiredValiditySeconds } from './tenant-scope.ts';

// biome-ignore lint/suspicious/noExplicitAny: an SDK client's send has overloads no narrower type covers
type Sender = { send: (...args: any[]) => Promise<any> };

/**
 * Makes `base` send each command with the credentials of the organisation it acts for (tenant-scope.ts): inside an
 * organisation's scope, through that organisation's own client (made by `clientWith`, cached, the least recently used
 * dropped past `maxClients`); outside one, as `base` always did, with the function's own role. Nothing falls back:
 * an organisation's call whose credentials cannot be had fails (TenantAccessUnavailableError).
 */
export function routedByOrganisation<C extends Sender>(
  base: C,
  tenant: TenantCredentials,
  clientWith: (credentials: AwsCredentialIdentityProvider) => C,
  maxClients = 100,
): C {
  const own = base.send.bind(base);
  const clients = new Map<string, C>();
  const clientOf = (orgId: string): C => {
    let client = clients.get(orgId);
    if (client) clients.delete(orgId);
    else client = clientWith(() => tenant.credentialsFor(orgId, requiredValiditySeconds()));
    clients.set(orgId, client);
    if (clients.size > maxClients) clients.delete(clients.keys().next().value as string);
    return client;
  };
  base.send = (...args: unknown[]) => {
    const orgId = actingOrg();
    return orgId ? clientOf(orgId).send(...args) : own(...args);
  };
  return base;
}

/**
 * A credentials provider for a signer outside the SDK's clients (S3 over REST): the acting organisation's
 * credentials, valid for as long as the scope asks (a pre-signed URL's lifetime), else the function's own.
 */
export function scopedCredentials(
  own: AwsCredentialIdentityProvider,
  tenant: TenantCredentials | undefined,
): AwsCredentialIdentityProvider {
  if (!tenant) return own;
  return async (): Promise<AwsCredentialIdentity> => {
    const orgId = actingOrg();
    return orgId ? tenant.credentialsFor(orgId, requiredValiditySeconds()) : own();
  };
}
