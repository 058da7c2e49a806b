import type { Channel } from '#shared/domain/orgs/model';
import type { NetworkChannel } from './messaging-network.ts';

/**
 * A channel's credentials for the messaging network: its phone-number id and access token. The only way to them,
 * and so the one gate every call to Meta passes (CONTRACT §17, §21).
 */
export interface ChannelCredentials {
  /**
   * Throws ChannelDisabledError (422 CHANNEL_DISABLED) for a channel an operator disabled, OrgSuspendedError (403
   * ORG_SUSPENDED; a queued job goes back to its queue) for a suspended organisation, OrgGoneError (401; a queued job
   * is dropped) for one being erased or gone, and an Error when the channel has no phone-number id or no access token.
   */
  forChannel(channel: Channel): Promise<NetworkChannel>;
}
