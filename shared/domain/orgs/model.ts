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

/**
 * The status copy (its own item, `keys.orgStatus`) that every token check and every worker reads afresh: the
 * organisation's status, or `deleting` from the first step of `org delete` until its last (CONTRACT §17). Written
 * with the organisation since status copies exist; an organisation created before has none until its status changes.
 */
export type OrgStatusCopy = OrgStatus | 'deleting';

/**
 * What a worker may do for an organisation: work (`active`), let the work wait (`suspended`), or drop it (`gone`: the
 * organisation is being erased, or no longer exists — a missing status copy is not "active" by itself).
 */
export type OrgWorkStatus = 'active' | 'suspended' | 'gone';

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
  /** The business's copy of Meta's group invite-link template (CONTRACT §16); absent → DEFAULT_INVITE_TEMPLATE. */
  inviteTemplate?: InviteTemplate;
  /**
   * Set by `channel disable`, removed by `channel enable`: while set, the network gate (ChannelCredentials) lets no
   * call to Meta through for the channel, and its routes answer 422 CHANNEL_DISABLED (CONTRACT §17).
   */
  disabledAt?: string;
  updatedAt?: string;
}

/** A message template by the name and language the business gave it in its WhatsApp account. */
export interface InviteTemplate {
  name: string;
  language: string;
}

/** Meta's Template Library name for the group invite-link template, in the language it is first offered in. */
export const DEFAULT_INVITE_TEMPLATE: InviteTemplate = { name: 'group_invite_link', language: 'en_US' };

export const inviteTemplateOf = (channel: Pick<Channel, 'inviteTemplate'>): InviteTemplate =>
  channel.inviteTemplate ?? DEFAULT_INVITE_TEMPLATE;

/** Meta's template names: lowercase letters, digits and underscores, at most 512. */
export const TEMPLATE_NAME = /^[a-z0-9_]{1,512}$/;
/** Meta's template language codes: `en`, `en_US`, `zh_CN`, `fil`, `pt_BR`, … */
export const TEMPLATE_LANGUAGE = /^[a-z]{2,3}(_[A-Za-z]{2,4})?$/;

/** What callers may see of a channel: never network credentials (CONTRACT §3). */
export function publicChannel(channel: Channel) {
  const { channelId, name, type, phoneNumber, officialBusinessAccount, groupsEligible, createdAt } = channel;
  return {
    channelId,
    name,
    type,
    phoneNumber,
    officialBusinessAccount,
    groupsEligible,
    createdAt,
    inviteTemplate: inviteTemplateOf(channel),
  };
}
