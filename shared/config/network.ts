import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { routedByOrganisation } from '#shared/adapters/aws/tenant-clients';
import { GraphMessagingNetwork } from '#shared/adapters/graph/graph-network';
import { SecretsManagerChannelCredentials } from '#shared/adapters/keys/channel-credentials';
import { SecretsManagerWhatsAppSecrets } from '#shared/adapters/keys/whatsapp-secrets';
import type { ChannelCredentials } from '#shared/ports/channel-credentials';
import type { MessagingNetwork } from '#shared/ports/messaging-network';
import type { WhatsAppSecrets } from '#shared/ports/whatsapp-secrets';
import { accessStatus } from './access.ts';
import { awsClientOptions, config } from './core.ts';
import { instance } from './instances.ts';
import { tenantCredentials } from './tenant.ts';

/** Meta's Graph API over `fetch`: no SDK client. */
export function messagingNetwork(): MessagingNetwork {
  return instance(messagingNetwork, () => new GraphMessagingNetwork({ baseUrl: config().whatsapp.graphUrl }));
}

/** The Secrets Manager client that reads the channels' access tokens and Meta's app secret. */
export function secretsManager(): SecretsManagerClient {
  return instance(secretsManager, () => {
    const client = new SecretsManagerClient(awsClientOptions(undefined));
    const tenant = tenantCredentials();
    if (!tenant) return client;
    const { requestHandler } = client.config;
    // A channel's token with its organisation's credentials (CONTRACT §25); Meta's app secret with the function's.
    return routedByOrganisation(
      client,
      tenant,
      (credentials) => new SecretsManagerClient({ ...awsClientOptions(undefined), credentials, requestHandler }),
    );
  });
}

/** The one gate to Meta: a channel's token, refused for a disabled channel or a suspended organisation (§17, §21). */
export function channelCredentials(): ChannelCredentials {
  return instance(channelCredentials, () => new SecretsManagerChannelCredentials(secretsManager, accessStatus()));
}

export function whatsAppSecrets(): WhatsAppSecrets {
  return instance(whatsAppSecrets, () => {
    const { appSecret, verifyToken, secretsId } = config().whatsapp;
    return new SecretsManagerWhatsAppSecrets({ appSecret, verifyToken }, secretsId, secretsManager);
  });
}
