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
  const cleanups: (() => Promise<void>)[] = [];
  try {
    return await start(options, cleanups);
  } catch (error) {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    running = false;
    throw error;
  }
}

async function start(options: LocalStackOptions, cleanups: (() => Promise<void>)[]): Promise<LocalStack> {
  const sourceEnv = options.env ?? process.env;
  const base = loadConfig(sourceEnv);
  const inMemory = base.local.dataDir === ':memory:';
  const dataDir = inMemory ? await mkdtemp(join(tmpdir(), 'wpcrm-')) : resolve(base.local.dataDir);
  await mkdir(dataDir, { recursive: true });
  if (inMemory) cleanups.push(() => rm(dataDir, { recursive: true, force: true }));

  // The key of this run (CONTRACT §21): every local endpoint refuses any other signature; stack.json holds it.
  const credentials = newLocalCredentials();
  const dynamoPath = inMemory ? undefined : join(dataDir, 'dynamodb');
  let dynamo = await startDynamo({ port: base.local.dynamoPort, path: dynamoPath, guarded: credentials });
  cleanups.push(() => dynamo.close());
  const s3 = await startS3({
    port: base.local.s3Port,
    directory: join(dataDir, 's3'),
    bucket: base.aws.reportsBucket,
    guarded: credentials,
  });
  cleanups.push(s3.close);

  const keysFile = join(dataDir, 'jwt-keys.json');
  if (!existsSync(keysFile)) {
    await writeFile(keysFile, JSON.stringify(await newKeySet(), null, 2), { mode: 0o600 });
    await chmod(keysFile, 0o600);
  }

  const webhookKeyFile = join(dataDir, 'webhook-secrets.key');
  if (!existsSync(webhookKeyFile)) await writeFile(webhookKeyFile, randomBytes(32).toString('base64'), { mode: 0o600 });

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

  const userGraphUrl = sourceEnv.WHATSAPP_GRAPH_URL;
  let simulator: WhatsAppSimulator | undefined;
  let simulatorPort: number | null = null;
  if (!userGraphUrl) {
    simulator = new WhatsAppSimulator({ appSecret: base.whatsapp.appSecret });
    simulatorPort = await simulator.listen(base.local.simulatorPort);
    cleanups.push(() => simulator!.close());
  }
  const graphUrl = userGraphUrl ?? `http://127.0.0.1:${simulatorPort}/${GRAPH_VERSION}`;

  const front = new HttpFront();
  const apiPort = await front.listen(base.local.port);
  cleanups.push(() => front.close());
  const apiUrl = `http://127.0.0.1:${apiPort}${BASE_PATH}`;

  const handlerEnv: Record<string, string> = {
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WPCRM_LOCAL_STACK: 'true',
    ...definedOnly(sourceEnv),
    AWS_REGION: base.aws.region,
    // The key of this run: the local endpoints refuse any other signature (infra/local/loopback-guard.ts).
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    TABLE_NAME: base.aws.tableName,
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    S3_ENDPOINT: s3.endpoint,
    SQS_ENDPOINT: awsEndpoint,
    EVENTBRIDGE_ENDPOINT: awsEndpoint,
    WHATSAPP_GRAPH_URL: graphUrl,
    WPCRM_S3_PUBLIC_URL: sourceEnv.WPCRM_S3_PUBLIC_URL ?? s3.endpoint,
    JWT_KEYS_FILE: keysFile,
    WEBHOOK_SECRETS_KEY_FILE: webhookKeyFile,
    WPCRM_WEBHOOK_URL: `${apiUrl}/network/whatsapp/webhook`,
    // The business counts' EMF records (shared/observability/metrics.ts), read by `wpcrm status`.
    WPCRM_METRICS_FILE: join(dataDir, 'logs', 'metrics.log'),
  };
  for (const def of QUEUES) {
    handlerEnv[queueUrlVariable(def.name)] = emulator.queueUrl(def.name);
    // The pool its organisations share, as the stack tells the consumer on AWS (shared/queue/org-share.ts).
    if (def.orgShare) handlerEnv[poolSizeVariable(def.name)] ??= String(def.maxConcurrency);
  }
  const previousEnv = Object.fromEntries(Object.keys(handlerEnv).map((name) => [name, process.env[name]]));
  Object.assign(process.env, handlerEnv);
  // First in the list, so it runs last: no handler may rebuild its dependencies from the restored environment.
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
  const cfg = loadConfig(process.env);
  if (simulator) simulator.options.webhookUrl = handlerEnv.WPCRM_WEBHOOK_URL;

  await ensureTable(
    new DynamoDBClient({
      region: cfg.aws.region,
      endpoint: dynamo.endpoint,
      credentials,
    }),
    cfg.aws.tableName,
  );

  const demo = options.seed === false ? undefined : await loadOrSeedDemo(dataDir, inMemory);

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
  }, cfg.sweepIntervalMs);
  timer.unref();
  cleanups.push(async () => {
    clearInterval(timer);
    await sweeping;
  });

  const info = localStackInfo({
    apiUrl,
    apiPort,
    dynamo,
    s3,
    simulatorPort,
    awsEndpoint,
    graphUrl,
    tableName: cfg.aws.tableName,
    reportsBucket: cfg.aws.reportsBucket,
    credentials,
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
    simulator,
    sweep,
    restartDynamo: async (downtime = 0) => {
      if (inMemory) throw new Error('restarting DynamoDB needs a data dir: in memory, the data would be lost');
      await dynamo.close();
      try {
        if (typeof downtime === 'function') await downtime();
        else await new Promise((resolveDelay) => setTimeout(resolveDelay, downtime));
      } finally {
        dynamo = await startDynamo({ port: dynamo.port, path: dynamoPath, guarded: credentials });
      }
    },
    close: async () => {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
      cleanups.length = 0;
      running = false;
    },
  };
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
