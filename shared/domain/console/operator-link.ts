import { credentialIdOf } from '#shared/domain/auth/credential-id';
import { ADMINS } from '#shared/domain/auth/roles';
import { secretFingerprint } from '#shared/domain/auth/secret-fingerprint';
import type { ClientCredential } from '#shared/domain/orgs/model';
import { DomainError } from '#shared/errors';
import type { ConsoleAccess } from './model.ts';
import { type CreateLinkDeps, createConsoleLink, DEFAULT_SESSION_SECONDS } from './sessions.ts';

export interface OperatorLinkDeps extends CreateLinkDeps {
  credentials: {
    getCredential(clientId: string): Promise<ClientCredential | undefined>;
    listCredentials(orgId: string): Promise<ClientCredential[]>;
  };
}

/**
 * `wpcrm console-link` and `npm start`'s demo link: an operator's link is still bound to one credential of the
 * organisation, so that every session has a credential whose revocation ends it (CONTRACT §24).
 * 1. The credential: the one named, else the organisation's oldest active ACCOUNT_OWNER one, else CRM_ADMIN (for a
 *    `read` link, else any active one).
 * 2. The link, as `POST /console-links` makes it for that credential.
 */
export async function createOperatorLink(
  deps: OperatorLinkDeps,
  input: { orgId: string; clientId?: string; access: ConsoleAccess; consoleUrl: string; sessionSeconds?: number },
) {
  const credential = input.clientId
    ? await deps.credentials.getCredential(input.clientId)
    : await chooseCredential(deps, input.orgId, input.access);
  if (!credential || credential.orgId !== input.orgId || credential.revokedAt) {
    throw new DomainError(
      'VALIDATION_FAILED',
      input.clientId
        ? `credential ${input.clientId} is not an active credential of organisation ${input.orgId}`
        : `organisation ${input.orgId} has no active credential that may open the console; create one with ` +
            '`wpcrm credential create --roles ACCOUNT_OWNER`',
    );
  }
  if (input.access === 'manage' && !credential.roles.some((role) => ADMINS.includes(role))) {
    throw new DomainError('VALIDATION_FAILED', 'a manage link needs an ACCOUNT_OWNER or CRM_ADMIN credential');
  }
  return createConsoleLink(deps, {
    principal: {
      orgId: credential.orgId,
      clientId: credential.clientId,
      credentialId: credentialIdOf(credential),
      roles: credential.roles,
      secretFingerprint: secretFingerprint(credential.secretHash),
    },
    access: input.access,
    sessionSeconds: input.sessionSeconds ?? DEFAULT_SESSION_SECONDS,
    consoleUrl: input.consoleUrl,
  });
}

async function chooseCredential(deps: OperatorLinkDeps, orgId: string, access: ConsoleAccess) {
  const active = (await deps.credentials.listCredentials(orgId))
    .filter((credential) => !credential.revokedAt)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  return (
    active.find((credential) => credential.roles.includes('ACCOUNT_OWNER')) ??
    active.find((credential) => credential.roles.includes('CRM_ADMIN')) ??
    (access === 'read' ? active[0] : undefined)
  );
}
