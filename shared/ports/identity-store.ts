import type { Channel, ClientCredential, Organisation } from '#shared/domain/orgs/model';

/** One page of a listing; `nextKey` is the store's opaque position, turned into a cursor by the HTTP layer. */
export interface Page<T> {
  items: T[];
  nextKey?: Record<string, unknown>;
}

export interface PageRequest {
  limit: number;
  startKey?: Record<string, unknown>;
}

export interface OrgStore {
  /** Creates the organisation; fails if the id exists. */
  createOrg(org: Organisation): Promise<void>;
  getOrg(orgId: string): Promise<Organisation | undefined>;
}

export interface CredentialStore {
  createCredential(credential: ClientCredential): Promise<void>;
  getCredential(clientId: string): Promise<ClientCredential | undefined>;
}

export interface ChannelStore {
  createChannel(channel: Channel): Promise<void>;
  getChannel(orgId: string, channelId: string): Promise<Channel | undefined>;
  findChannelByPhoneNumberId(phoneNumberId: string): Promise<Channel | undefined>;
  /** The organisation whose channel has the number: from the index's keys alone (no item read, no credentials). */
  findOrgByPhoneNumberId(phoneNumberId: string): Promise<string | undefined>;
  /** Channels of one organisation, oldest first. */
  listChannels(orgId: string, page: PageRequest): Promise<Page<Channel>>;
}

/**
 * The counters of `POST /token` attempts (CONTRACT §2, §13, §18): per (client id, source address) pair, per client id
 * and per source address, in separate key spaces, so that no client id can touch an address counter.
 */
export type AttemptCounter =
  | { kind: 'client'; id: string }
  | { kind: 'address'; id: string }
  /** `id` is the client id; `address` the source address. */
  | { kind: 'pair'; id: string; address: string };

export type AttemptClaim = { allowed: true; windowStartedAt: number } | { allowed: false; retryAfterSeconds: number };

/**
 * Attempts are counted before they are checked, in a fixed window that starts at the first one: one conditional
 * write admits an attempt only while fewer than `limit` are counted, so concurrent attempts cannot overshoot.
 */
export interface LoginAttemptStore {
  claimAttempt(counter: AttemptCounter, now: Date, windowSeconds: number, limit: number): Promise<AttemptClaim>;
  /** Takes back an attempt that turned out not to be a failure, from the window (epoch seconds) it was counted in. */
  refundAttempt(counter: AttemptCounter, windowStartedAt: number): Promise<void>;
}
