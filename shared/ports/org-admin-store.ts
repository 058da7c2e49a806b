import type { Channel, ClientCredential, Organisation, OrgStatus, OrgStatusCopy } from '#shared/domain/orgs/model';

/** How many of each thing an organisation holds (`org show`). */
export interface OrgCounts {
  channels: number;
  credentials: number;
  groups: number;
  reports: number;
  subscriptions: number;
}

/** The channel fields an operator may change (`channel update`). */
export type ChannelChanges = Partial<
  Pick<Channel, 'name' | 'groupsEligible' | 'accessToken' | 'accessTokenSecretId' | 'inviteTemplate' | 'disabledAt'>
>;

/** Changes to apply: undefined leaves a field, `null` removes it. */
export type ChannelPatch = { [K in keyof ChannelChanges]?: ChannelChanges[K] | null };

/**
 * What the operator commands (CONTRACT §17) read and change. Listings across organisations scan the table: they are
 * operator tools, run rarely, never on a request path.
 */
export interface OrgAdminStore {
  listOrgs(): Promise<Organisation[]>;
  /**
   * Sets the status on the organisation, then its status copy (never over an erasure's `deleting`); undefined when it
   * does not exist or is being erased.
   */
  setOrgStatus(orgId: string, status: OrgStatus, at: string): Promise<Organisation | undefined>;
  /** The status copy that token checks and workers read (absent: see AccessStatusStore.getOrgStatus). */
  getOrgStatus(orgId: string): Promise<OrgStatusCopy | undefined>;
  countOrg(orgId: string): Promise<OrgCounts>;
  listCredentials(orgId: string): Promise<ClientCredential[]>;
  /** Revokes once; false when the credential does not exist. */
  revokeCredential(clientId: string, at: string): Promise<boolean>;
  /** Replaces the secret's hash if it is still `expectedHash` and the credential is not revoked. */
  rotateCredential(
    clientId: string,
    expectedHash: string,
    change: { secretHash: string; previousSecretExpiresAt?: string; at: string },
  ): Promise<boolean>;
  listChannels(orgId: string): Promise<Channel[]>;
  /** A channel by its id alone, whatever its organisation. */
  findChannel(channelId: string): Promise<Channel | undefined>;
  /** Applies `changes` to an existing channel; returns the result, or undefined when it does not exist. */
  updateChannel(orgId: string, channelId: string, changes: ChannelPatch, at: string): Promise<Channel | undefined>;
}

/** One stored item that belongs to an organisation, as the erasure sees it. */
export interface OrgItem {
  /** The store's key of the item, opaque to the domain. */
  key: Record<string, unknown>;
  /** What it is, for the per-kind counts. */
  kind: string;
  /** The client or channel id a defining item stands for. */
  id?: string;
  /** A channel's token secret (Secrets Manager id), erased with it. */
  secretId?: string;
}

/**
 * The organisation's items in the table, for `org delete`, found from its own keys (never a scan or a text search,
 * CONTRACT §17). `findItems` reports every item it owns but the defining ones (the organisation, its credentials and
 * channels, and the pointers to its credentials) and its status copy, which the erasure removes last so that an
 * interrupted run can find everything again; each page before the items that name it.
 */
export interface OrgEraseStore {
  /**
   * The erasure's first step: the status copy becomes `deleting` (every token check and worker reads it afresh, so
   * from here on none lets anything of the organisation through), then the organisation item is marked. Returns
   * when the organisation was first marked (a second run keeps that time), or undefined when neither the copy nor
   * the organisation item exists (erased before, or never there: every check refuses it already).
   */
  markDeleting(orgId: string, at: string): Promise<string | undefined>;
  findItems(orgId: string, onPage: (items: OrgItem[]) => Promise<void>): Promise<void>;
  /**
   * The defining items: the credentials with their client partitions (the attempt counters), the organisation's
   * pointers to them (erased after them), its channels and the organisation item.
   */
  definingItems(orgId: string): Promise<{
    credentials: OrgItem[];
    credentialPointers: OrgItem[];
    channels: OrgItem[];
    org: OrgItem[];
  }>;
  deleteItems(keys: Record<string, unknown>[]): Promise<void>;
  /** The erasure's last step: the status copy goes, once nothing else of the organisation is left. */
  deleteStatusCopy(orgId: string): Promise<void>;
}

/** The organisation's files (report CSVs, under one prefix). */
export interface OrgFiles {
  /** Every key under `prefix`. */
  list(prefix: string): Promise<string[]>;
  delete(key: string): Promise<void>;
}

/** Secrets the service holds for an organisation outside the table (channel tokens on AWS). */
export interface OrgSecrets {
  /** Deletes the secret at once, without a recovery window; an already missing one is fine. */
  delete(secretId: string): Promise<void>;
}
