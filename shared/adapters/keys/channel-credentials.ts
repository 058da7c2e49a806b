import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Channel } from '#shared/domain/orgs/model';
import type { ChannelCredentials } from '#shared/ports/channel-credentials';
import type { NetworkChannel } from '#shared/ports/messaging-network';

/**
 * A channel's network credentials: the access token is in the record locally, and a Secrets Manager reference on
 * AWS (read once per cold start and cached).
 */
export class SecretsManagerChannelCredentials implements ChannelCredentials {
  #cache = new Map<string, Promise<string>>();

  constructor(private readonly secrets: () => SecretsManagerClient) {}

  async forChannel(channel: Channel): Promise<NetworkChannel> {
    if (!channel.phoneNumberId) throw new Error(`channel ${channel.channelId} has no phone-number id`);
    if (channel.accessToken) return { phoneNumberId: channel.phoneNumberId, accessToken: channel.accessToken };
    const secretId = channel.accessTokenSecretId;
    if (!secretId) throw new Error(`channel ${channel.channelId} has no access token`);
    let token = this.#cache.get(secretId);
    if (!token) {
      token = this.secrets()
        .send(new GetSecretValueCommand({ SecretId: secretId }))
        .then((result) => result.SecretString ?? '');
      this.#cache.set(secretId, token);
      token.catch(() => this.#cache.delete(secretId));
    }
    return { phoneNumberId: channel.phoneNumberId, accessToken: await token };
  }
}
