import { randomUUID } from 'node:crypto';
import { generateClientSecret, hashClientSecret } from '#shared/auth/client-secret';
import type { Role } from '#shared/domain/auth/roles';
import { DomainError } from '#shared/errors';
import type { Clock } from '#shared/ports/clock';
import type { ChannelStore, CredentialStore, OrgStore } from '#shared/ports/identity-store';
import type { IdGenerator } from '#shared/ports/ids';
import type { Channel, ChannelType, InviteTemplate } from './model.ts';

interface AdminDeps {
  clock: Clock;
  ids: IdGenerator;
  identity: OrgStore & CredentialStore & ChannelStore;
}

export class OrgNotFoundError extends DomainError {
  constructor(orgId: string) {
    super('VALIDATION_FAILED', `organisation ${orgId} does not exist`);
  }
}

export class OrgBeingErasedError extends DomainError {
  constructor(orgId: string) {
    super('VALIDATION_FAILED', `organisation ${orgId} is being deleted`);
  }
}

/** The organisation, to add something to: it exists and no erasure has begun (CONTRACT §17). */
async function liveOrg(deps: AdminDeps, orgId: string) {
  const org = await deps.identity.getOrg(orgId);
  if (!org) throw new OrgNotFoundError(orgId);
  if (org.deletingAt) throw new OrgBeingErasedError(orgId);
  return org;
}

/** Creates an organisation with a fresh lowercase UUID. */
export async function createOrg(deps: AdminDeps, input: { name: string; orgId?: string }) {
  const orgId = input.orgId ?? randomUUID();
  await deps.identity.createOrg({ orgId, name: input.name, createdAt: deps.clock.now().toISOString() });
  return { orgId };
}

/**
 * Creates client credentials for an organisation.
 * 1. Check the organisation exists and is not being deleted.
 * 2. Generate a client id and a 256-bit secret; store only the secret's scrypt hash.
 * 3. Return the secret: this is the only time it is shown.
 */
export async function createCredential(deps: AdminDeps, input: { orgId: string; roles: Role[] }) {
  await liveOrg(deps, input.orgId);
  const clientId = deps.ids.next('cli');
  const clientSecret = generateClientSecret();
  await deps.identity.createCredential({
    clientId,
    credentialId: deps.ids.next('crd'),
    orgId: input.orgId,
    roles: input.roles,
    secretHash: await hashClientSecret(clientSecret),
    createdAt: deps.clock.now().toISOString(),
  });
  return { clientId, clientSecret, roles: input.roles };
}

export interface NewChannel {
  orgId: string;
  name: string;
  type: ChannelType;
  phoneNumber: string;
  officialBusinessAccount?: boolean;
  /** Defaults to true for an Official Business Account channel, false otherwise (CONTRACT §10). */
  groupsEligible?: boolean;
  phoneNumberId?: string;
  accessToken?: string;
  accessTokenSecretId?: string;
  channelId?: string;
  /** Defaults to DEFAULT_INVITE_TEMPLATE when absent (CONTRACT §16). */
  inviteTemplate?: InviteTemplate;
}

/** Creates a channel of an existing organisation. */
export async function createChannel(deps: AdminDeps, input: NewChannel) {
  await liveOrg(deps, input.orgId);
  const officialBusinessAccount = input.officialBusinessAccount ?? false;
  const channel: Channel = {
    channelId: input.channelId ?? deps.ids.next('ch'),
    orgId: input.orgId,
    name: input.name,
    type: input.type,
    phoneNumber: input.phoneNumber,
    officialBusinessAccount,
    groupsEligible: input.groupsEligible ?? officialBusinessAccount,
    phoneNumberId: input.phoneNumberId,
    accessToken: input.accessToken,
    accessTokenSecretId: input.accessTokenSecretId,
    createdAt: deps.clock.now().toISOString(),
    ...(input.inviteTemplate ? { inviteTemplate: input.inviteTemplate } : {}),
  };
  await deps.identity.createChannel(channel);
  return { channelId: channel.channelId };
}
