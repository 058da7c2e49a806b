import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { KMSClient } from '@aws-sdk/client-kms';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SSMClient } from '@aws-sdk/client-ssm';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoChatStore } from '#shared/adapters/dynamodb/chat-store';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { DynamoCrmStore } from '#shared/adapters/dynamodb/crm-store';
import { DynamoGroupRequestStore } from '#shared/adapters/dynamodb/group-request-store';
import { DynamoIdentityStore } from '#shared/adapters/dynamodb/identity-store';
import { DynamoLimits } from '#shared/adapters/dynamodb/limits';
import { DynamoReportStore } from '#shared/adapters/dynamodb/report-store';
import { DynamoWebhookStore } from '#shared/adapters/dynamodb/webhook-store';
import { EventBridgePublisher } from '#shared/adapters/eventbridge/event-publisher';
import { GraphMessagingNetwork } from '#shared/adapters/graph/graph-network';
import { AwsKeyStore } from '#shared/adapters/keys/aws-key-store';
import { SecretsManagerChannelCredentials } from '#shared/adapters/keys/channel-credentials';
import { FileKeyStore } from '#shared/adapters/keys/file-key-store';
import { SecretsManagerWhatsAppSecrets } from '#shared/adapters/keys/whatsapp-secrets';
import { KmsSecretBox, LocalSecretBox } from '#shared/adapters/kms/secret-box';
import { S3ReportFiles } from '#shared/adapters/s3/report-files';
import { SqsJobQueue } from '#shared/adapters/sqs/job-queue';
import { WebhookSender } from '#shared/adapters/webhooks/http-sender';
import { type Config, config } from '#shared/config/env';
import type { ChannelCredentials } from '#shared/ports/channel-credentials';
import { type Clock, systemClock } from '#shared/ports/clock';
import type { EventPublisher } from '#shared/ports/event-publisher';
import { type IdGenerator, ulidIds } from '#shared/ports/ids';
import type { JobQueue } from '#shared/ports/job-queue';
import type { KeyStore } from '#shared/ports/key-store';
import type { MessagingNetwork } from '#shared/ports/messaging-network';
import type { SecretBox } from '#shared/ports/secret-box';
import type { WebhookTransport } from '#shared/ports/webhook-transport';
import type { WhatsAppSecrets } from '#shared/ports/whatsapp-secrets';

/**
 * The composition root: SDK clients and adapters, each built on first use and then kept for the life of the
 * process (one cold start), so a function only creates the clients it actually touches.
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
  files: S3ReportFiles;
}

/** SDK defaults for every AWS client: bounded retries and timeouts, the endpoint the stack configured. */
const clientOptions = (region: string, endpoint: string | undefined) => ({
  region,
  endpoint,
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000 },
});

function lazy<T extends object>(factories: { [K in keyof T]: () => T[K] }): T {
  const target = {} as T;
  for (const name of Object.keys(factories) as (keyof T)[]) {
    Object.defineProperty(target, name, {
      enumerable: true,
      configurable: true,
      get() {
        const value = factories[name]();
        Object.defineProperty(target, name, { value, enumerable: true });
        return value;
      },
    });
  }
  return target;
}

function buildDeps(): Deps {
  const cfg = config();
  const deps: Deps = lazy<Deps>({
    config: () => cfg,
    clock: () => systemClock,
    ids: () => ulidIds(),
    db: () => createDocumentClient({ region: cfg.aws.region, endpoint: cfg.aws.endpoints.dynamodb }),
    identity: () => new DynamoIdentityStore(deps.db, cfg.aws.tableName),
    groups: () => new DynamoGroupRequestStore(deps.db, cfg.aws.tableName),
    chats: () => new DynamoChatStore(deps.db, cfg.aws.tableName),
    limits: () => new DynamoLimits(deps.db, cfg.aws.tableName),
    queue: () =>
      new SqsJobQueue(new SQSClient(clientOptions(cfg.aws.region, cfg.aws.endpoints.sqs)), (name) => {
        const url = cfg.queueUrls[name];
        if (!url) throw new Error(`no URL configured for queue ${name}`);
        return url;
      }),
    events: () =>
      new EventBridgePublisher(
        new EventBridgeClient(clientOptions(cfg.aws.region, cfg.aws.endpoints.eventbridge)),
        cfg.aws.eventBusName,
      ),
    network: () => new GraphMessagingNetwork({ baseUrl: cfg.whatsapp.graphUrl }),
    secrets: () => new SecretsManagerClient(clientOptions(cfg.aws.region, undefined)),
    channelCredentials: () => new SecretsManagerChannelCredentials(() => deps.secrets),
    webhooks: () => new DynamoWebhookStore(deps.db, cfg.aws.tableName),
    reports: () => new DynamoReportStore(deps.db, cfg.aws.tableName),
    crm: () => new DynamoCrmStore(deps.db, cfg.aws.tableName),
    files: () => {
      const s3 = (endpoint: string | undefined) =>
        new S3Client({
          ...clientOptions(cfg.aws.region, endpoint),
          // Report parts are 5 MiB: give each upload request more time than an API call.
          requestHandler: { connectionTimeout: 1_000, requestTimeout: 30_000 },
          forcePathStyle: endpoint !== undefined,
        });
      const client = s3(cfg.aws.endpoints.s3);
      // Locally the signed URL must name the host callers reach; on AWS the regional endpoint is that host.
      const signer = cfg.reports.s3PublicUrl ? s3(cfg.reports.s3PublicUrl) : client;
      return new S3ReportFiles(client, signer, cfg.aws.reportsBucket);
    },
    secretBox: () => {
      if (cfg.webhooks.kmsKeyId)
        return new KmsSecretBox(new KMSClient(clientOptions(cfg.aws.region, undefined)), cfg.webhooks.kmsKeyId);
      if (cfg.webhooks.keyFile) return new LocalSecretBox(cfg.webhooks.keyFile);
      throw new Error('WEBHOOK_SECRETS_KMS_KEY_ID or WEBHOOK_SECRETS_KEY_FILE must be set');
    },
    webhookTransport: () => new WebhookSender({ allowPrivate: cfg.webhooks.allowPrivateTargets }),
    whatsappSecrets: () =>
      new SecretsManagerWhatsAppSecrets(
        { appSecret: cfg.whatsapp.appSecret, verifyToken: cfg.whatsapp.verifyToken },
        cfg.whatsapp.secretsId,
        () => deps.secrets,
      ),
    keys: () =>
      cfg.jwt.keysFile
        ? new FileKeyStore(cfg.jwt.keysFile)
        : new AwsKeyStore(
            {
              secrets: cfg.jwt.signingSecretId ? new SecretsManagerClient({ region: cfg.aws.region }) : undefined,
              ssm: cfg.jwt.publicKeysParameter ? new SSMClient({ region: cfg.aws.region }) : undefined,
            },
            { signingSecretId: cfg.jwt.signingSecretId, publicKeysParameter: cfg.jwt.publicKeysParameter },
          ),
  });
  return deps;
}

let cached: Deps | undefined;

/** The process-wide dependencies. */
export function deps(): Deps {
  cached ??= buildDeps();
  return cached;
}

/** Forgets every client; the local stack calls it when it restarts in the same process. */
export function resetDeps(): void {
  cached = undefined;
}
