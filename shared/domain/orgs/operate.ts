import { generateClientSecret, hashClientSecret } from '#shared/auth/client-secret';
import { ChannelNotFoundError, DomainError } from '#shared/errors';
import type { Clock } from '#shared/ports/clock';
import type { OrgStore } from '#shared/ports/identity-store';
import type { ChannelPatch, OrgAdminStore } from '#shared/ports/org-admin-store';
import { OrgNotFoundError } from './administer.ts';
import type { Channel, ClientCredential, Organisation, OrgStatus } from './model.ts';

/** Operator use cases of CONTRACT §17 (`wpcrm org|credential|channel …`). */
export interface OperateDeps {
  clock: Clock;
  identity: OrgStore & { getCredential(clientId: string): Promise<ClientCredential | undefined> };
  admin: OrgAdminStore;
  /** Stores a channel's new network token where the channel keeps it (the item locally, its secret on AWS). */
  channelTokens?: { put(channel: Channel, token: string): Promise<ChannelPatch> };
}

export class CredentialNotFoundError extends DomainError {
  constructor(clientId: string) {
    super('VALIDATION_FAILED', `credential ${clientId} does not exist`);
  }
}

const statusOf = (org: Organisation) => (org.deletingAt ? 'deleting' : (org.status ?? 'active'));

const orgView = (org: Organisation) => ({
  orgId: org.orgId,
  name: org.name,
  status: statusOf(org),
  createdAt: org.createdAt,
});

async function requireOrg(deps: OperateDeps, orgId: string): Promise<Organisation> {
  const org = await deps.identity.getOrg(orgId);
  if (!org) throw new OrgNotFoundError(orgId);
  return org;
}

export async function listOrgs(deps: OperateDeps) {
  return { organisations: (await deps.admin.listOrgs()).map(orgView) };
}

/** One organisation with how many channels, credentials, groups, reports and subscriptions it holds. */
export async function showOrg(deps: OperateDeps, input: { orgId: string }) {
  const org = await requireOrg(deps, input.orgId);
  return { ...orgView(org), counts: await deps.admin.countOrg(input.orgId) };
}

/**
 * Suspends or resumes an organisation: the organisation, then the status copy the token checks read; tokens and
 * workers see it within their cache's minute (CONTRACT §17). Running it again repairs an interrupted change.
 */
export async function setOrgStatus(deps: OperateDeps, input: { orgId: string; status: OrgStatus }) {
  const org = await requireOrg(deps, input.orgId);
  if (org.deletingAt) throw new DomainError('VALIDATION_FAILED', `organisation ${input.orgId} is being deleted`);
  const changed = await deps.admin.setOrgStatus(input.orgId, input.status, deps.clock.now().toISOString());
  if (!changed) throw new OrgNotFoundError(input.orgId);
  return orgView(changed);
}

const credentialView = (credential: ClientCredential & { credentialId?: string }) => ({
  clientId: credential.clientId,
  ...(credential.credentialId ? { credentialId: credential.credentialId } : {}),
  orgId: credential.orgId,
  roles: credential.roles,
  status: credential.revokedAt ? 'revoked' : 'active',
  createdAt: credential.createdAt,
  revokedAt: credential.revokedAt ?? null,
  rotatedAt: credential.rotatedAt ?? null,
  previousSecretExpiresAt: credential.previousSecretExpiresAt ?? null,
});

/** The organisation's credentials, never a secret or its hash. */
export async function listCredentials(deps: OperateDeps, input: { orgId: string }) {
  await requireOrg(deps, input.orgId);
  return { credentials: (await deps.admin.listCredentials(input.orgId)).map(credentialView) };
}

/** Revokes a credential: `POST /token` refuses it at once, its tokens within the verifiers' cache minute. */
export async function revokeCredential(deps: OperateDeps, input: { clientId: string }) {
  if (!(await deps.admin.revokeCredential(input.clientId, deps.clock.now().toISOString()))) {
    throw new CredentialNotFoundError(input.clientId);
  }
  const credential = await deps.identity.getCredential(input.clientId);
  return credentialView(credential!);
}

/**
 * Gives a credential a new secret, shown only here. The old secret keeps working for `overlapSeconds` (0: not at
 * all). Conditional on the hash it replaces, so two rotations at once cannot both win.
 */
export async function rotateCredential(deps: OperateDeps, input: { clientId: string; overlapSeconds: number }) {
  const credential = await deps.identity.getCredential(input.clientId);
  if (!credential) throw new CredentialNotFoundError(input.clientId);
  if (credential.revokedAt) throw new DomainError('VALIDATION_FAILED', `credential ${input.clientId} is revoked`);
  const now = deps.clock.now();
  const clientSecret = generateClientSecret();
  const previousSecretExpiresAt =
    input.overlapSeconds > 0 ? new Date(now.getTime() + input.overlapSeconds * 1000).toISOString() : undefined;
  const rotated = await deps.admin.rotateCredential(input.clientId, credential.secretHash, {
    secretHash: await hashClientSecret(clientSecret),
    previousSecretExpiresAt,
    at: now.toISOString(),
  });
  if (!rotated) {
    throw new DomainError('VALIDATION_FAILED', `credential ${input.clientId} changed meanwhile; run the command again`);
  }
  return { clientId: input.clientId, clientSecret, previousSecretExpiresAt: previousSecretExpiresAt ?? null };
}

/** What an operator sees of a channel: everything but the token itself. */
const channelView = (channel: Channel) => ({
  channelId: channel.channelId,
  orgId: channel.orgId,
  name: channel.name,
  type: channel.type,
  phoneNumber: channel.phoneNumber,
  phoneNumberId: channel.phoneNumberId ?? null,
  officialBusinessAccount: channel.officialBusinessAccount,
  groupsEligible: channel.groupsEligible,
  status: channel.disabledAt ? 'disabled' : 'active',
  accessToken: channel.accessToken ? 'stored' : channel.accessTokenSecretId ? 'secret' : 'none',
  accessTokenSecretId: channel.accessTokenSecretId ?? null,
  inviteTemplate: channel.inviteTemplate ?? null,
  createdAt: channel.createdAt,
  updatedAt: channel.updatedAt ?? channel.createdAt,
  disabledAt: channel.disabledAt ?? null,
});

export async function listChannels(deps: OperateDeps, input: { orgId: string }) {
  await requireOrg(deps, input.orgId);
  return { channels: (await deps.admin.listChannels(input.orgId)).map(channelView) };
}

export interface ChannelUpdate {
  channelId: string;
  name?: string;
  groupsEligible?: boolean;
  accessToken?: string;
  accessTokenSecretId?: string;
  inviteTemplate?: { name: string; language: string };
  /** `channel disable`: nothing reaches Meta on its behalf (the network gate, CONTRACT §17). */
  disable?: true;
  /** `channel enable`: the channel works again (routes at once; workers within their caches). */
  enable?: true;
}

/**
 * Changes a channel. A new access token goes where the channel keeps it; a new secret id replaces a token held in
 * the item. Functions use a new token within their secret cache's 5 minutes, with no redeploy.
 */
export async function updateChannel(deps: OperateDeps, input: ChannelUpdate) {
  const channel = await deps.admin.findChannel(input.channelId);
  if (!channel) throw new ChannelNotFoundError(input.channelId);
  const now = deps.clock.now().toISOString();
  const changes: ChannelPatch = {
    name: input.name,
    groupsEligible: input.groupsEligible,
    inviteTemplate: input.inviteTemplate,
    disabledAt: input.disable ? (channel.disabledAt ?? now) : input.enable ? null : undefined,
  };
  if (input.accessTokenSecretId)
    Object.assign(changes, { accessTokenSecretId: input.accessTokenSecretId, accessToken: null });
  if (input.accessToken) {
    if (!deps.channelTokens) throw new DomainError('VALIDATION_FAILED', 'this target cannot store access tokens');
    Object.assign(changes, await deps.channelTokens.put(channel, input.accessToken));
  }
  const updated = await deps.admin.updateChannel(channel.orgId, channel.channelId, changes, now);
  if (!updated) throw new ChannelNotFoundError(input.channelId);
  return channelView(updated);
}
