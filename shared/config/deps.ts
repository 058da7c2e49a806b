import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoChatStore } from '#shared/adapters/dynamodb/chat-store';
import type { DynamoCrmStore } from '#shared/adapters/dynamodb/crm-store';
import type { DynamoGroupRequestStore } from '#shared/adapters/dynamodb/group-request-store';
import type { DynamoIdentityStore } from '#shared/adapters/dynamodb/identity-store';
import type { DynamoLimits } from '#shared/adapters/dynamodb/limits';
import type { DynamoReportStore } from '#shared/adapters/dynamodb/report-store';
import type { DynamoWebhookStore } from '#shared/adapters/dynamodb/webhook-store';
import type { Config } from '#shared/config/env';
import type { ChannelCredentials } from '#shared/ports/channel-credentials';
import type { Clock } from '#shared/ports/clock';
import type { EventPublisher } from '#shared/ports/event-publisher';
import type { IdGenerator } from '#shared/ports/ids';
import type { JobQueue } from '#shared/ports/job-queue';
import type { KeyStore } from '#shared/ports/key-store';
import type { MessagingNetwork } from '#shared/ports/messaging-network';
import type { ReportFiles } from '#shared/ports/report-files';
import type { SecretBox } from '#shared/ports/secret-box';
import type { WebhookTransport } from '#shared/ports/webhook-transport';
import type { WhatsAppSecrets } from '#shared/ports/whatsapp-secrets';
import { clock, config, ids } from './core.ts';
import {
  chatStore,
  crmStore,
  documentClient,
  groupRequestStore,
  identityStore,
  limits,
  reportStore,
  webhookStore,
} from './dynamodb.ts';
import { eventPublisher } from './eventbridge.ts';
import { instance, lazyDeps } from './instances.ts';
import { signingKeyStore } from './keys.ts';
import { channelCredentials, messagingNetwork, secretsManager, whatsAppSecrets } from './network.ts';
import { reportFiles } from './s3.ts';
import { secretBox } from './secret-box.ts';
import { jobQueue } from './sqs.ts';
import { webhookTransport } from './webhooks.ts';

export { resetDeps } from './instances.ts';

/**
 * Every port of the service at once, for the tools that run beside the functions: the local stack's seeding, the
 * wpcrm command, tests and benchmarks. Functions never import this module (an infra test checks their bundles): each
 * takes only the getters its use case needs from the per-port modules next to it, and so bundles only their clients.
 * The instances are the same ones those getters return.
 */
export interface Deps {
  config: Config;
  clock: Clock;
  ids: IdGenerator;
  db: DynamoDBDocumentClient;
  identity: DynamoIdentityStore;
  keys: KeyStore;
  groups: DynamoGroupRequestStore;
  chats: DynamoChatStore;
  limits: DynamoLimits;
  queue: JobQueue;
  events: EventPublisher;
  network: MessagingNetwork;
  secrets: SecretsManagerClient;
  channelCredentials: ChannelCredentials;
  whatsappSecrets: WhatsAppSecrets;
  webhooks: DynamoWebhookStore;
  secretBox: SecretBox;
  webhookTransport: WebhookTransport;
  reports: DynamoReportStore;
  crm: DynamoCrmStore;
  files: ReportFiles;
}

/** The process-wide dependencies, each built on first use. */
export function deps(): Deps {
  return instance(deps, () =>
    lazyDeps<Deps>({
      config,
      clock,
      ids,
      db: documentClient,
      identity: identityStore,
      keys: signingKeyStore,
      groups: groupRequestStore,
      chats: chatStore,
      limits,
      queue: jobQueue,
      events: eventPublisher,
      network: messagingNetwork,
      secrets: secretsManager,
      channelCredentials,
      whatsappSecrets: whatsAppSecrets,
      webhooks: webhookStore,
      secretBox,
      webhookTransport,
      reports: reportStore,
      crm: crmStore,
      files: reportFiles,
    }),
  );
}
