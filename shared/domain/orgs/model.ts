import type { Role } from '#shared/domain/auth/roles';

export interface Organisation {
  orgId: string;
  name: string;
  createdAt: string;
}

export interface ClientCredential {
  clientId: string;
  /**
   * The credential's opaque id (`crd_…`), shown as the sender of its messages and never usable at /token (CONTRACT
   * §18). Absent on credentials created before it existed: `credentialIdOf` derives theirs.
   */
  credentialId?: string;
  orgId: string;
  roles: Role[];
  /** `scrypt$N$r$p$<salt>$<hash>`; the secret itself is never stored. */
  secretHash: string;
  createdAt: string;
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
}

/** What callers may see of a channel: never network credentials (CONTRACT §3). */
export function publicChannel(channel: Channel) {
  const { channelId, name, type, phoneNumber, officialBusinessAccount, groupsEligible, createdAt } = channel;
  return { channelId, name, type, phoneNumber, officialBusinessAccount, groupsEligible, createdAt };
}
