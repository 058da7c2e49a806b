import type { Role } from '#shared/domain/auth/roles';

export interface Organisation {
  orgId: string;
  name: string;
  createdAt: string;
  /** Absent means active. Suspended: its tokens are refused (403 ORG_SUSPENDED) and its queued work waits. */
  status?: OrgStatus;
  /** Set by `org delete`: the organisation is being erased; its tokens are refused (401). */
  deletingAt?: string;
}

export const ORG_STATUSES = ['active', 'suspended'] as const;
export type OrgStatus = (typeof ORG_STATUSES)[number];

export interface ClientCredential {
  clientId: string;
  orgId: string;
  roles: Role[];
  /** `scrypt$N$r$p$<salt>$<hash>`; the secret itself is never stored. */
  secretHash: string;
  createdAt: string;
  /** Set by `credential revoke`: /token refuses it and its tokens are refused (401). */
  revokedAt?: string;
  /** The hash replaced by `credential rotate`, accepted until `previousSecretExpiresAt`. */
  previousSecretHash?: string;
  previousSecretExpiresAt?: string;
  rotatedAt?: string;
}

export const CHANNEL_TYPES = ['MESSAGING_OFFICIAL', 'MESSAGING_UNOFFICIAL', 'INSTAGRAM', 'EMAIL'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

export interface Channel {
  channelId: string;
  orgId: string;
  name: string;
  type: ChannelType;
  phoneNumber: string;
  officialBusinessAccount: boolean;
  groupsEligible: boolean;
  /** Meta's phone-number id, for MESSAGING_OFFICIAL channels. */
  phoneNumberId?: string;
  /** Network access token. Local only; on AWS the channel holds `accessTokenSecretId` instead. */
  accessToken?: string;
  accessTokenSecretId?: string;
  createdAt: string;
  /** Set by `channel disable`: creating groups or sending on it → 422 CHANNEL_DISABLED. */
  disabledAt?: string;
  /** The approved WhatsApp message template that carries group invitations. */
  inviteTemplate?: { name: string; language: string };
  updatedAt?: string;
}

/** What callers may see of a channel: never network credentials (CONTRACT §3). */
export function publicChannel(channel: Channel) {
  const { channelId, name, type, phoneNumber, officialBusinessAccount, groupsEligible, createdAt } = channel;
  return { channelId, name, type, phoneNumber, officialBusinessAccount, groupsEligible, createdAt };
}
