import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { AccessStatusCache } from '#shared/domain/auth/access-status';
import type { Channel } from '#shared/domain/orgs/model';
import { ChannelDisabledError, OrgGoneError, OrgSuspendedError } from '#shared/errors';
import type { ChannelCredentials } from '#shared/ports/channel-credentials';
import type { NetworkChannel } from '#shared/ports/messaging-network';
import { SECRET_MAX_AGE_SECONDS } from './max-age.ts';

/**
 * A channel's network credentials, and the one gate to Meta (CONTRACT §17, §21): every call to Meta needs the
 * token this returns, and it is refused for a disabled channel (ChannelDisabledError), a suspended organisation
 * (OrgSuspendedError) or one being erased or gone (OrgGoneError), its status read afresh, before any token is read,
 * whoever asks.
 *
 * The access token is in the record locally, and a Secrets Manager reference on AWS, reused for
 * SECRET_MAX_AGE_SECONDS (an operator's new token reaches warm functions within 5 minutes; a failed read is not
 * cached).
 */
export class SecretsManagerChannelCredentials implements ChannelCredentials {
  #provider: SecretsProvider | undefined;

  constructor(
    private readonly secrets: () => SecretsManagerClient,
    private readonly access: Pick<AccessStatusCache, 'workStatus'>,
  ) {}

  async forChannel(channel: Channel): Promise<NetworkChannel> {
    if (channel.disabledAt) throw new ChannelDisabledError(channel.channelId);
    const status = await this.access.workStatus(channel.orgId);
    if (status === 'gone') throw new OrgGoneError();
    if (status === 'suspended') throw new OrgSuspendedError();
    if (!channel.phoneNumberId) throw new Error(`channel ${channel.channelId} has no phone-number id`);
    if (channel.accessToken) return { phoneNumberId: channel.phoneNumberId, accessToken: channel.accessToken };
    const secretId = channel.accessTokenSecretId;
    if (!secretId) throw new Error(`channel ${channel.channelId} has no access token`);
    this.#provider ??= new SecretsProvider({ awsSdkV3Client: this.secrets() });
    const accessToken = await this.#provider.get(secretId, { maxAge: SECRET_MAX_AGE_SECONDS });
    if (typeof accessToken !== 'string' || accessToken.length === 0) {
      throw new Error(`channel ${channel.channelId}: the access token secret is empty`);
    }
    return { phoneNumberId: channel.phoneNumberId, accessToken };
  }
}
