import * as v from 'valibot';
import { queueUrlVariable } from '#shared/adapters/sqs/job-queue';
import { LOCAL_DEVELOPMENT_APP_SECRET } from '#shared/auth/meta-signature';
import { poolSizeVariable } from '#shared/events/catalog';
import { int, settingSchemas } from './settings.ts';

/**
 * All configuration, read from the environment once and validated here (CONTRACT §10). Every variable has a working
 * local default; the CDK stack sets the AWS values explicitly. An invalid value fails the cold start. The settings an
 * operator tunes per deployment are declared in settings.ts (the CDK stack writes them from the same declaration);
 * the rest is wiring.
 */
const bool = (fallback: boolean) =>
  v.pipe(
    v.optional(v.picklist(['true', 'false'], 'must be true or false'), String(fallback) as 'true' | 'false'),
    v.transform((value) => value === 'true'),
  );
const text = (fallback: string) => v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty')), fallback);
const optionalText = v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty')));
const url = (fallback: string) => v.optional(v.pipe(v.string(), v.url('must be a URL')), fallback);
const optionalUrl = v.optional(v.pipe(v.string(), v.url('must be a URL')));

const EnvSchema = v.object({
  ...settingSchemas(),
  /** Shorter than 32 characters or a placeholder: the network webhook answers 503 (CONTRACT §13). */
  WHATSAPP_APP_SECRET: text(LOCAL_DEVELOPMENT_APP_SECRET),
  WHATSAPP_VERIFY_TOKEN: text('local-whatsapp-verify-token'),
  WHATSAPP_GRAPH_URL: url('https://graph.facebook.com/v23.0'),
  /** AWS: a Secrets Manager secret {"appSecret","verifyToken"} that replaces the two variables above. */
  WHATSAPP_SECRETS_ID: optionalText,
  JWT_ISSUER: text('https://wp-crm.local'),
  JWT_AUDIENCE: text('wp-crm-api'),
  /**
   * How long token verifiers reuse a credential (CONTRACT §17: a revocation within 60 s). An organisation's status is
   * never reused: it is read at every check (shared/domain/auth/access-status.ts).
   */
  ACCESS_STATUS_CACHE_SECONDS: int(30, 0, 60),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: bool(false),
  /** Webhook secrets at rest: a KMS key on AWS, or a local key file (the local stack makes one). */
  WEBHOOK_SECRETS_KMS_KEY_ID: optionalText,
  WEBHOOK_SECRETS_KEY_FILE: optionalText,
  WPCRM_SWEEP_INTERVAL_MS: int(5000, 10),
  WPCRM_S3_PUBLIC_URL: optionalUrl,
  /** Set by the stack when CloudFront and WAF front the API (infra/aws/edge.ts): the public origin callers use. */
  WPCRM_EDGE_ORIGIN: optionalUrl,
  /** Set by `npm start` for its handlers: the one place the local development app secret is accepted. */
  WPCRM_LOCAL_STACK: bool(false),
  /** The local stack (npm start) and the wpcrm command. */
  PORT: int(3000),
  WPCRM_DATA_DIR: text('.wpcrm'),
  WPCRM_DYNAMODB_PORT: int(8000),
  WPCRM_S3_PORT: int(4569),
  WPCRM_SIMULATOR_PORT: int(4580),
  /** Wiring, set by the CDK stack or by the local stack. */
  REPORTS_BUCKET: text('wpcrm-reports'),
  AWS_REGION: text('eu-west-1'),
  TABLE_NAME: text('wpcrm'),
  /** The stage's tenant-access role (CONTRACT §25): set by the stack on every function that acts for organisations. */
  TENANT_ACCESS_ROLE_ARN: optionalText,
  DYNAMODB_ENDPOINT: optionalUrl,
  SQS_ENDPOINT: optionalUrl,
  EVENTBRIDGE_ENDPOINT: optionalUrl,
  S3_ENDPOINT: optionalUrl,
  /** The AWS SDK's configured-endpoint variables; S3 is called without the SDK, so they are read here for it. */
  AWS_ENDPOINT_URL_S3: optionalUrl,
  /** STS is called without the SDK too (shared/adapters/aws/sts-rest.ts: the tenant-access role, CONTRACT §25). */
  AWS_ENDPOINT_URL_STS: optionalUrl,
  AWS_ENDPOINT_URL: optionalUrl,
  AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: optionalText,
  EVENT_BUS_NAME: text('wpcrm'),
  /** Local: a JSON file holding the signing keys. AWS: a Secrets Manager secret (private) and an SSM parameter (public). */
  JWT_KEYS_FILE: optionalText,
  JWT_SIGNING_SECRET_ID: optionalText,
  JWT_PUBLIC_KEYS_PARAMETER: optionalText,
  /** List cursors' HMAC key: AWS, a generated Secrets Manager secret; locally a value, else random per process. */
  CURSOR_KEY_SECRET_ID: optionalText,
  CURSOR_SIGNING_KEY: v.optional(v.pipe(v.string(), v.minLength(32, 'must be at least 32 characters'))),
  /** Locally, after a rotation: the replaced key, still opening event iterators it sealed (CONTRACT §20). */
  CURSOR_PREVIOUS_SIGNING_KEY: v.optional(v.pipe(v.string(), v.minLength(32, 'must be at least 32 characters'))),
});

export type Config = ReturnType<typeof toConfig>;

/**
 * The pool of `queue`'s consumer as deployed (`<QUEUE>_POOL_SIZE`), read when the consumer asks: the stacks write it
 * for the queues whose organisations share their pool (infra/aws/functions.ts).
 */
function poolSizeReader(raw: Record<string, string | undefined>) {
  return (queue: string): number | undefined => {
    const value = raw[poolSizeVariable(queue)];
    if (value === undefined) return undefined;
    if (!/^[1-9]\d*$/.test(value)) throw new ConfigError([`${poolSizeVariable(queue)} must be a positive integer`]);
    return Number(value);
  };
}

function toConfig(env: Env, raw: Record<string, string | undefined>) {
  return { ...serviceSettings(env, raw), ...wiring(env) };
}

type Env = v.InferOutput<typeof EnvSchema>;

/** What the service's behaviour depends on: its queues, the network, tokens, and each concern's settings. */
function serviceSettings(env: Env, raw: Record<string, string | undefined>) {
  return {
    /** A queue's URL by its logical name (`<NAME>_QUEUE_URL`, written for the queues a function sends to). */
    queueUrl: (name: string): string | undefined => raw[queueUrlVariable(name)],
    /**
     * The pool of a consumer whose organisations have a share of it (`<NAME>_POOL_SIZE`, set by the stacks from the
     * event source's maximum concurrency: shared/queue/org-share.ts); undefined for a queue without shares.
     */
    poolSize: poolSizeReader(raw),
    whatsapp: {
      appSecret: env.WHATSAPP_APP_SECRET,
      verifyToken: env.WHATSAPP_VERIFY_TOKEN,
      secretsId: env.WHATSAPP_SECRETS_ID,
      graphUrl: env.WHATSAPP_GRAPH_URL.replace(/\/+$/, ''),
    },
    jwt: {
      issuer: env.JWT_ISSUER,
      audience: env.JWT_AUDIENCE,
      ttlSeconds: env.TOKEN_TTL_SECONDS,
      keysFile: env.JWT_KEYS_FILE,
      signingSecretId: env.JWT_SIGNING_SECRET_ID,
      publicKeysParameter: env.JWT_PUBLIC_KEYS_PARAMETER,
    },
    access: { statusCacheSeconds: env.ACCESS_STATUS_CACHE_SECONDS },
    messaging: { sendRateLimit: env.MESSAGE_SEND_RATE_LIMIT },
    cursors: {
      keySecretId: env.CURSOR_KEY_SECRET_ID,
      signingKey: env.CURSOR_SIGNING_KEY,
      previousSigningKey: env.CURSOR_PREVIOUS_SIGNING_KEY,
    },
    groups: {
      createRateLimit: env.GROUP_CREATE_RATE_LIMIT,
      confirmationTimeoutSeconds: env.GROUP_CONFIRMATION_TIMEOUT_SECONDS,
      reconcileSettleSeconds: env.GROUP_RECONCILE_SETTLE_SECONDS,
      retryBaseSeconds: env.NETWORK_RETRY_BASE_SECONDS,
    },
    reports: {
      windowSeconds: env.REPORT_WINDOW_SECONDS,
      processingTimeoutSeconds: env.REPORT_PROCESSING_TIMEOUT_SECONDS,
      retentionSeconds: env.REPORT_RETENTION_SECONDS,
      downloadUrlTtlSeconds: env.REPORT_DOWNLOAD_URL_TTL_SECONDS,
      s3PublicUrl: env.WPCRM_S3_PUBLIC_URL,
    },
    reportSchedules: { limit: env.REPORT_SCHEDULE_LIMIT },
    webhooks: {
      retryScheduleSeconds: env.WEBHOOK_RETRY_SCHEDULE_SECONDS,
      allowPrivateTargets: env.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      subscriptionLimit: env.WEBHOOK_SUBSCRIPTION_LIMIT,
      kmsKeyId: env.WEBHOOK_SECRETS_KMS_KEY_ID,
      keyFile: env.WEBHOOK_SECRETS_KEY_FILE,
    },
    events: { retentionSeconds: env.EVENT_RETENTION_SECONDS },
    /** Per-organisation API quotas (CONTRACT §18), counted by every authenticated HTTP function. */
    quotas: {
      requests: env.ORG_REQUEST_RATE_LIMIT,
      networkCalls: env.NETWORK_CALL_RATE_LIMIT,
      redeliveries: env.WEBHOOK_REDELIVER_RATE_LIMIT,
    },
  };
}

/** Where the service runs: the edge, the console's framing, the local stack and the AWS resources. */
function wiring(env: Env) {
  return {
    /** Behind the edge: the origin callers use, and the caller's address comes from CloudFront (shared/http/edge.ts). */
    edgeOrigin: env.WPCRM_EDGE_ORIGIN?.replace(/\/+$/, ''),
    console: { frameAncestors: env.CONSOLE_FRAME_ANCESTORS.split(/\s+/).filter(Boolean) },
    sweepIntervalMs: env.WPCRM_SWEEP_INTERVAL_MS,
    localStack: env.WPCRM_LOCAL_STACK,
    local: {
      port: env.PORT,
      dataDir: env.WPCRM_DATA_DIR,
      dynamoPort: env.WPCRM_DYNAMODB_PORT,
      s3Port: env.WPCRM_S3_PORT,
      simulatorPort: env.WPCRM_SIMULATOR_PORT,
    },
    aws: {
      region: env.AWS_REGION,
      tableName: env.TABLE_NAME,
      tenantAccessRoleArn: env.TENANT_ACCESS_ROLE_ARN,
      eventBusName: env.EVENT_BUS_NAME,
      reportsBucket: env.REPORTS_BUCKET,
      endpoints: {
        dynamodb: env.DYNAMODB_ENDPOINT,
        sqs: env.SQS_ENDPOINT,
        eventbridge: env.EVENTBRIDGE_ENDPOINT,
        // start:cdk routes every AWS call through AWS_ENDPOINT_URL, which the SDK clients read themselves.
        s3: env.S3_ENDPOINT ?? configuredEndpoint(env, env.AWS_ENDPOINT_URL_S3),
        sts: configuredEndpoint(env, env.AWS_ENDPOINT_URL_STS),
      },
    },
  };
}

/** A service's configured endpoint as the SDK reads it (its own variable, else AWS_ENDPOINT_URL), unless ignored. */
function configuredEndpoint(env: Env, own: string | undefined): string | undefined {
  if (env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS?.toLowerCase() === 'true') return undefined;
  return own ?? env.AWS_ENDPOINT_URL;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/** Parses and validates the environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const result = v.safeParse(EnvSchema, env);
  if (!result.success) {
    throw new ConfigError(
      result.issues.map((issue) => `${issue.path?.map((item) => String(item.key)).join('.') ?? '?'} ${issue.message}`),
    );
  }
  return toConfig(result.output, env);
}

let cached: Config | undefined;

/** The process-wide configuration, read on first use. */
export function config(): Config {
  cached ??= loadConfig();
  return cached;
}

/** Forgets the cached configuration; the local stack calls it after setting the environment. */
export function resetConfig(): void {
  cached = undefined;
}
