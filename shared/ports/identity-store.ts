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
  /** Channels of one organisation, oldest first. */
  listChannels(orgId: string, page: PageRequest): Promise<Page<Channel>>;
}

/** Failed `POST /token` attempts per client id, in a fixed window that starts at the first failure. */
export interface LoginAttemptStore {
  failures(clientId: string, now: Date, windowSeconds: number): Promise<{ count: number; windowStartedAt: Date }>;
  recordFailure(clientId: string, now: Date, windowSeconds: number): Promise<void>;
  clear(clientId: string): Promise<void>;
}
