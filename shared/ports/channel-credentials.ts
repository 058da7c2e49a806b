import type { Channel } from '#shared/domain/orgs/model';
import type { NetworkChannel } from './messaging-network.ts';

/** A channel's credentials for the messaging network: its phone-number id and access token. */
export interface ChannelCredentials {
  /** Throws when the channel has no phone-number id or no access token. */
  forChannel(channel: Channel): Promise<NetworkChannel>;
}
