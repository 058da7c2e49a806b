import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ScheduledEvent } from 'aws-lambda';
import { QUEUES, SCHEDULES } from '#infra/aws/functions';
import { queueUrlVariable } from '#shared/adapters/sqs/job-queue';
import { newKeySet } from '#shared/auth/key-set';
import { deps, resetDeps } from '#shared/config/deps';
import { type Config, loadConfig, resetConfig } from '#shared/config/env';
import { poolSizeVariable } from '#shared/events/catalog';
import { logger } from '#shared/observability/logger';
import { BASE_PATH } from '#shared/routes/route';
import { AwsEmulator } from './aws-emulator.ts';
import { LocalBus } from './bus.ts';
import { HttpFront } from './http-front.ts';
import { drainInvocations, invoke, loadFunction } from './lambda.ts';
import { LocalQueue, QueueConsumer } from './queue.ts';
import { type DemoSeed, seedDemo } from './seed.ts';
import { ensureTable, startDynamo, startS3 } from './servers.ts';
import { newLocalCredentials } from './sigv4.ts';
import { GRAPH_VERSION, WhatsAppSimulator } from './simulator/server.ts';
import { type LocalStackInfo, localStackInfo, writeStackFile } from './stack-info.ts';

export interface LocalStackOptions {
  /** Environment to read configuration from (CONTRACT §10); defaults to process.env. */
  env?: Record<string, string | undefined>;
  /** Seed the demo organisation when the data dir is new (default true). */
  seed?: boolean;
}

export interface LocalStack {
  /** e.g. http://127.0.0.1:3000/api/wp-crm */
  apiUrl: string;
  info: LocalStackInfo;
  config: Config;
  dataDir: string;
  demo: DemoSeed | undefined;
  bus: LocalBus;
  queues: Map<string, LocalQueue>;
  simulator: WhatsAppSimulator | undefined;
  /** Runs every sweeper once, now. */
  sweep(): Promise<void>;
  /**
   * Stops the embedded DynamoDB server and starts it again on the same port over the same data, as an outage of
   * the database (fault injection). Calls in between fail as they would against an unreachable endpoint.
   * `downtime` is a number of milliseconds, or a function run while the database is down (a test's requests).
   */
  restartDynamo(downtime?: number | (() => Promise<void>)): Promise<void>;
  close(): Promise<void>;
}

let running = false;

/**
 * Starts the whole service in this process: dynalite, s3rver, the in-process queues and bus behind an AWS-protocol
 * endpoint, the WhatsApp simulator, the queue consumers and sweepers, and the HTTP front on the API port.
 */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  if (running) throw new Error('a local stack is already running in this process');
  running = true;
  const cleanups: Cleanups = [];
  try {
    return await start(options, cleanups);
  } catch (error) {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    running = false;
    throw error;
  }
}

async function start(options: LocalStackOptions, cleanups: Cleanups): Promise<LocalStack> {
  const sourceEnv = options.env ?? process.env;
  const base = loadConfig(sourceEnv);
  const inMemory = base.local.dataDir === ':memory:';
  const dataDir = inMemory ? await mkdtemp(join(tmpdir(), 'wpcrm-')) : resolve(base.local.dataDir);
  await mkdir(dataDir, { recursive: true });
  if (inMemory) cleanups.push(() => rm(dataDir, { recursive: true, force: true }));

  const servers = await startServers(base, dataDir, inMemory, cleanups);
  const { queues, bus, emulator, awsEndpoint } = await startQueues(servers.credentials, cleanups);
  const network = await startNetwork(sourceEnv, base, cleanups);
  const front = new HttpFront();
  const apiPort = await front.listen(base.local.port);
  cleanups.push(() => front.close());
  const apiUrl = `http://127.0.0.1:${apiPort}${BASE_PATH}`;

  const { graphUrl } = network;
  const handlerEnv = handlerEnvironment({ sourceEnv, base, dataDir, servers, awsEndpoint, apiUrl, graphUrl });
  for (const def of QUEUES) handlerEnv[queueUrlVariable(def.name)] = emulator.queueUrl(def.name);
  const cfg = applyEnvironment(handlerEnv, cleanups);
  if (network.simulator) network.simulator.options.webhookUrl = handlerEnv.WPCRM_WEBHOOK_URL;
  const dynamoClient = new DynamoDBClient({
    region: cfg.aws.region,
    endpoint: servers.dynamo.endpoint,
    credentials: servers.credentials,
  });
  await ensureTable(dynamoClient, cfg.aws.tableName);

  const demo = options.seed === false ? undefined : await loadOrSeedDemo(dataDir, inMemory);
  await startConsumers(queues, cleanups);
  const sweep = startSweeps(cfg.sweepIntervalMs, cleanups);

  const info = localStackInfo({
    apiUrl,
    apiPort,
    dynamo: servers.dynamo,
    s3: servers.s3,
    simulatorPort: network.simulatorPort,
    awsEndpoint,
    graphUrl: network.graphUrl,
    tableName: cfg.aws.tableName,
    reportsBucket: cfg.aws.reportsBucket,
    credentials: servers.credentials,
  });
  const removeStackFile = await writeStackFile(dataDir, info, inMemory);
  if (removeStackFile) cleanups.push(removeStackFile);

  return {
    apiUrl,
    info,
    config: cfg,
    dataDir,
    demo,
    bus,
    queues,
    simulator: network.simulator,
    sweep,
    restartDynamo: async (downtime = 0) => {
      if (inMemory) throw new Error('restarting DynamoDB needs a data dir: in memory, the data would be lost');
      await servers.restartDynamo(downtime);
    },
    close: async () => {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
      cleanups.length = 0;
      running = false;
    },
  };
}

type Cleanups = (() => Promise<void>)[];

/**
 * The embedded DynamoDB and S3 servers, guarded by the key of this run (CONTRACT §21): every local endpoint refuses
 * any other signature; stack.json holds it. With them, the files of the keys the handlers read.
 */
async function startServers(base: Config, dataDir: string, inMemory: boolean, cleanups: Cleanups) {
  const credentials = newLocalCredentials();
  const dynamoPath = inMemory ? undefined : join(dataDir, 'dynamodb');
  const servers = {
    credentials,
    dynamo: await startDynamo({ port: base.local.dynamoPort, path: dynamoPath, guarded: credentials }),
    s3: await startS3({
      port: base.local.s3Port,
      directory: join(dataDir, 's3'),
      bucket: base.aws.reportsBucket,
      guarded: credentials,
    }),
    ...(await keyFiles(dataDir)),
    /** Stops the DynamoDB server and starts it again on the same port over the same data (LocalStack.restartDynamo). */
    restartDynamo: async (downtime: number | (() => Promise<void>)) => {
      await servers.dynamo.close();
      try {
        if (typeof downtime === 'function') await downtime();
        else await new Promise((resolveDelay) => setTimeout(resolveDelay, downtime));
      } finally {
        servers.dynamo = await startDynamo({ port: servers.dynamo.port, path: dynamoPath, guarded: credentials });
      }
    },
  };
  cleanups.push(() => servers.dynamo.close());
  cleanups.push(servers.s3.close);
  return servers;
}

/** The JWT signing keys and the webhook secrets' key of this data dir, made on its first run. */
async function keyFiles(dataDir: string) {
  const keysFile = join(dataDir, 'jwt-keys.json');
  if (!existsSync(keysFile)) {
    await writeFile(keysFile, JSON.stringify(await newKeySet(), null, 2), { mode: 0o600 });
    await chmod(keysFile, 0o600);
  }
  const webhookKeyFile = join(dataDir, 'webhook-secrets.key');
  if (!existsSync(webhookKeyFile)) await writeFile(webhookKeyFile, randomBytes(32).toString('base64'), { mode: 0o600 });
  return { keysFile, webhookKeyFile };
}

/** Each worker's queue and its DLQ, the bus, and the AWS-protocol endpoint the handlers reach them at. */
async function startQueues(credentials: { accessKeyId: string; secretAccessKey: string }, cleanups: Cleanups) {
  const queues = new Map<string, LocalQueue>();
  for (const def of QUEUES) {
    const dlq = new LocalQueue(`${def.name}-dlq`, { visibilityTimeoutSeconds: 30 });
    queues.set(dlq.name, dlq);
    queues.set(
      def.name,
      new LocalQueue(def.name, {
        visibilityTimeoutSeconds: def.timeoutSeconds * 6,
        maxReceiveCount: def.maxReceiveCount,
        deadLetterQueue: dlq,
      }),
    );
  }
  const bus = new LocalBus(queues);
  const emulator = new AwsEmulator(queues, bus, credentials);
  const awsEndpoint = await emulator.listen();
  cleanups.push(() => emulator.close());
  // Runs after every event source below has stopped (cleanups run in reverse) and before any server closes:
  // a handler still running must not find its table or queue gone.
  cleanups.push(drainInvocations);
  return { queues, bus, emulator, awsEndpoint };
}

/** The WhatsApp simulator, unless the user points WHATSAPP_GRAPH_URL elsewhere. */
async function startNetwork(sourceEnv: Record<string, string | undefined>, base: Config, cleanups: Cleanups) {
  const userGraphUrl = sourceEnv.WHATSAPP_GRAPH_URL;
  if (userGraphUrl) return { simulator: undefined, simulatorPort: null, graphUrl: userGraphUrl };
  const simulator = new WhatsAppSimulator({ appSecret: base.whatsapp.appSecret });
  const simulatorPort = await simulator.listen(base.local.simulatorPort);
  cleanups.push(() => simulator.close());
  return { simulator, simulatorPort, graphUrl: `http://127.0.0.1:${simulatorPort}/${GRAPH_VERSION}` };
}

/**
 * What the handlers read, as the stack on AWS would set it: the user's environment, then the local endpoints, files
 * and the run's key, and each shared consumer's pool (its row's, unless the user set one).
 */
type Servers = Awaited<ReturnType<typeof startServers>>;

function handlerEnvironment(local: {
  sourceEnv: Record<string, string | undefined>;
  base: Config;
  dataDir: string;
  servers: Servers;
  awsEndpoint: string;
  apiUrl: string;
  graphUrl: string;
}): Record<string, string> {
  const { sourceEnv, base, servers } = local;
  const env: Record<string, string> = {
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WPCRM_LOCAL_STACK: 'true',
    ...definedOnly(sourceEnv),
    AWS_REGION: base.aws.region,
    // The key of this run: the local endpoints refuse any other signature (infra/local/loopback-guard.ts).
    AWS_ACCESS_KEY_ID: servers.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: servers.credentials.secretAccessKey,
    TABLE_NAME: base.aws.tableName,
    DYNAMODB_ENDPOINT: servers.dynamo.endpoint,
    S3_ENDPOINT: servers.s3.endpoint,
    SQS_ENDPOINT: local.awsEndpoint,
    EVENTBRIDGE_ENDPOINT: local.awsEndpoint,
    WHATSAPP_GRAPH_URL: local.graphUrl,
    WPCRM_S3_PUBLIC_URL: sourceEnv.WPCRM_S3_PUBLIC_URL ?? servers.s3.endpoint,
    JWT_KEYS_FILE: servers.keysFile,
    WEBHOOK_SECRETS_KEY_FILE: servers.webhookKeyFile,
    WPCRM_WEBHOOK_URL: `${local.apiUrl}/network/whatsapp/webhook`,
    // The business counts' EMF records (shared/observability/metrics.ts), read by `wpcrm status`.
    WPCRM_METRICS_FILE: join(local.dataDir, 'logs', 'metrics.log'),
  };
  // The pool its organisations share, as the stack tells the consumer on AWS (shared/queue/org-share.ts).
  for (const def of QUEUES) if (def.orgShare) env[poolSizeVariable(def.name)] ??= String(def.maxConcurrency);
  return env;
}

/**
 * Sets the handlers' environment in this process (they run here) and reads the configuration from it; the first
 * cleanup, so it runs last, restores it: no handler may rebuild its dependencies from the restored environment.
 */
function applyEnvironment(handlerEnv: Record<string, string>, cleanups: Cleanups): Config {
  const previousEnv = Object.fromEntries(Object.keys(handlerEnv).map((name) => [name, process.env[name]]));
  Object.assign(process.env, handlerEnv);
  cleanups.unshift(async () => {
    for (const [name, value] of Object.entries(previousEnv)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    resetConfig();
    resetDeps();
  });
  resetConfig();
  resetDeps();
  return loadConfig(process.env);
}

/** A consumer per queue, each invoking its function as Lambda's event source mapping would. */
async function startConsumers(queues: Map<string, LocalQueue>, cleanups: Cleanups): Promise<void> {
  const consumers: QueueConsumer[] = [];
  for (const def of QUEUES) {
    await loadFunction(def.consumer);
    consumers.push(
      new QueueConsumer(queues.get(def.name)!, (event) => invoke(def.consumer, event, def.timeoutSeconds * 1000), {
        batchSize: def.batchSize,
        maxConcurrency: def.maxConcurrency,
        onError: (error) => logger.warn('queue batch failed', { queue: def.name, error: error as Error }),
      }),
    );
  }
  cleanups.push(async () => {
    await Promise.all(consumers.map((consumer) => consumer.stop()));
  });
}

/** The sweepers, every WPCRM_SWEEP_INTERVAL_MS (one sweep at a time); the returned function runs every one now. */
function startSweeps(intervalMs: number, cleanups: Cleanups): () => Promise<void> {
  const sweep = async () => {
    for (const schedule of SCHEDULES) {
      await invoke(schedule.fn, scheduledEvent(schedule.name), 60_000).catch((error: unknown) =>
        logger.warn('sweeper failed', { sweeper: schedule.name, error: error as Error }),
      );
    }
  };
  let sweeping: Promise<void> | undefined;
  const timer = setInterval(() => {
    sweeping ??= sweep().finally(() => {
      sweeping = undefined;
    });
  }, intervalMs);
  timer.unref();
  cleanups.push(async () => {
    clearInterval(timer);
    await sweeping;
  });
  return sweep;
}

export { queueUrlVariable };

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

async function loadOrSeedDemo(dataDir: string, inMemory: boolean): Promise<DemoSeed> {
  const file = join(dataDir, 'demo.json');
  if (!inMemory && existsSync(file)) return JSON.parse(await readFile(file, 'utf8')) as DemoSeed;
  const demo = await seedDemo(deps());
  if (!inMemory) await writeFile(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return demo;
}

function scheduledEvent(name: string): ScheduledEvent {
  return {
    version: '0',
    id: crypto.randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: new Date().toISOString(),
    region: 'local',
    resources: [`arn:aws:events:local:000000000000:rule/${name}`],
    detail: {},
  } as ScheduledEvent;
}
