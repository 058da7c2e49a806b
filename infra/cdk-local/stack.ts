import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { REPO_ROOT } from '#infra/aws/constructs/app-function';
import { QUEUES } from '#infra/aws/functions';
import { settingsAsContext } from '#infra/aws/settings';
import { channelSecretsPrefix } from '#infra/aws/tenant-access';
import { AwsEmulator, type EventBusBackend } from '#infra/local/aws-emulator';
import type { PutEventsEntry } from '#infra/local/bus';
import { LocalQueue, QueueConsumer } from '#infra/local/queue';
import { type DemoSeed, seedDemo } from '#infra/local/seed';
import { startDynamo, startS3, waitForActiveTable } from '#infra/local/servers';
import { newLocalCredentials, newSessionCredentials } from '#infra/local/sigv4';
import { GRAPH_VERSION, WhatsAppSimulator } from '#infra/local/simulator/server';
import { type CdkStackInfo, cdkStackInfo, writeStackFile } from '#infra/local/stack-info';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { DynamoCrmStore } from '#shared/adapters/dynamodb/crm-store';
import { DynamoIdentityStore } from '#shared/adapters/dynamodb/identity-store';
import { type Config, loadConfig } from '#shared/config/env';
import { poolSizeVariable } from '#shared/events/catalog';
import { type EventPattern, matchesPattern } from '#shared/events/pattern';
import { systemClock } from '#shared/ports/clock';
import { ulidIds } from '#shared/ports/ids';
import { BASE_PATH } from '#shared/routes/route';
import { AwsGateway } from './aws-gateway.ts';
import { type ApiRoute, TemplateHttpApi } from './http-api.ts';
import { type IamLedger, type IamMode, type IamReport, IamLedger as Ledger, PROBE_PREFIX } from './iam-ledger.ts';
import { lambdaServiceCalls } from './lambda-logs.ts';
import { FunctionRuntime, type InvokeOutcome } from './lambda-runtime.ts';
import { TemplatePolicies } from './policies.ts';
import { AwsServices } from './services.ts';
import { type SynthOutput, synthesize } from './synth.ts';
import {
  type DeploymentContext,
  type PhysicalResource,
  physicalResources,
  type Template,
  TemplateResolver,
  type TemplateResource,
} from './template.ts';

const ACCOUNT = '000000000000';
/** The local emulation of Lambda's concurrency: environments per function at most. */
const DEFAULT_MAX_ENVIRONMENTS = 4;
/**
 * Variables of CONTRACT §10 that only the local run has, which a user may set for it: they reach every function. The
 * service's settings are not among them: they reach the functions that read them through the template, as on AWS.
 */
const LOCAL_OVERRIDES = ['WHATSAPP_GRAPH_URL', 'WEBHOOK_ALLOW_PRIVATE_TARGETS', 'WPCRM_S3_PUBLIC_URL'];

export interface CdkStackOptions {
  /** Environment to read configuration from (CONTRACT §10, §14); defaults to process.env. */
  env?: Record<string, string | undefined>;
  /** Seed the demo organisation when the data dir is new (default true). */
  seed?: boolean;
  /**
   * The test-only fault switch (CONTRACT §25, shared/adapters/aws/tenant-scope.ts): every function may be told, through
   * `CdkStack.setFault`, to hand its stores another organisation's id. Refused outside the tests (vitest).
   */
  testFaults?: boolean;
}

/** Functions (by logical id) told to hand their stores `foreignOrg` in place of the organisation they act for. */
export interface Fault {
  functions: string[];
  foreignOrg: string;
}

export interface CdkStack {
  apiUrl: string;
  info: CdkStackInfo;
  config: Config;
  dataDir: string;
  demo: DemoSeed | undefined;
  simulator: WhatsAppSimulator | undefined;
  /** Per function: calls denied and granted actions never used (CONTRACT §14). */
  iamReport(): IamReport;
  /** The template's functions by logical id. */
  functions: Map<string, FunctionRuntime>;
  /** The template's queues by physical name (what the fair queues see, for the benchmarks). */
  queues: Map<string, LocalQueue>;
  /** With `testFaults`: turns the fault switch on for one function, or off. */
  setFault(fault: Fault | undefined): Promise<void>;
  close(): Promise<void>;
}

/**
 * The synthesized template as it runs here, what every part started from it (custom resources, queue mappings, rules,
 * schedules, routes) works with.
 */
interface Deployment {
  template: Template;
  context: DeploymentContext;
  resolver: TemplateResolver;
  /** Physical ids and attributes by logical id. */
  physical: Map<string, PhysicalResource>;
  policies: TemplatePolicies;
  ledger: IamLedger;
  /** The bundled functions by name and by ARN. */
  functions: Map<string, FunctionRuntime>;
}

/**
 * `npm run start:cdk`: synthesizes the CDK app and runs that template here (CONTRACT §14). Each function runs from
 * its bundled asset in its own processes with the template's environment, handler, timeout and memory, and every AWS
 * call it makes passes the AWS gateway, which checks it against the function's role. Routes, queue mappings, rules,
 * schedules and custom resources come from the template; ports, stack.json, the demo seed and the simulator are
 * those of `npm start`.
 */
export async function startCdkStack(options: CdkStackOptions = {}): Promise<CdkStack> {
  const cleanups: Cleanups = [];
  try {
    return await start(options, cleanups);
  } catch (error) {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    throw error;
  }
}

async function start(options: CdkStackOptions, cleanups: Cleanups): Promise<CdkStack> {
  const run = await prepare(options, cleanups);
  const gateway = await startGateway(run);
  const api = await startApi(run, gateway);
  const deployment = deploymentOf(run, gateway.awsEndpoint, api.origin);
  const data = await startData(run, deployment);
  const network = await startNetwork(run, api.origin);
  const functions = startFunctions(run, deployment, gateway, network.graphUrl);
  const operator = operatorSession(deployment.template, deployment.policies, gateway.gateway, run.ledger);
  await runCustomResources(deployment, run.dataDir, run.inMemory);
  storeAppSecret(run, deployment);
  const demo = options.seed === false ? undefined : await seedDemoOnce(run, data);
  startEventSources(run, deployment);
  // The HTTP API last: it only answers once everything behind it runs.
  api.goLive(deployment);
  const info = cdkStackInfo(
    {
      apiUrl: api.url,
      apiPort: api.port,
      dynamo: data.dynamo,
      s3: data.s3,
      simulatorPort: network.simulatorPort,
      awsEndpoint: gateway.awsEndpoint,
      graphUrl: network.graphUrl,
      tableName: data.tableName,
      reportsBucket: data.bucketName,
      credentials: run.credentials,
    },
    run.synth.stackName,
    gateway.emulatorUrl,
    run.localRoutesToken,
    operator,
  );
  await finishCleanups(run, info, functions.cleanupIndex, api.close);
  return {
    apiUrl: api.url,
    info,
    config: run.cfg,
    dataDir: run.dataDir,
    demo,
    simulator: network.simulator,
    functions: run.functions,
    queues: run.queues,
    iamReport: () => run.ledger.report(),
    setFault: async (fault) => {
      if (!run.faultFile) throw new Error('setFault needs a stack started with testFaults');
      await writeFile(run.faultFile, JSON.stringify(fault ?? {}));
    },
    close: async () => {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
      cleanups.length = 0;
    },
  };
}

type Cleanups = (() => Promise<void>)[];

/**
 * One run as it starts: its configuration and synthesized template, and what its steps fill in for the others (the
 * gateway and the routes look up the policies, functions and bus that later steps make).
 */
interface Run {
  sourceEnv: Record<string, string | undefined>;
  cfg: Config;
  stage: string;
  synth: SynthOutput;
  dataDir: string;
  inMemory: boolean;
  cleanups: Cleanups;
  ledger: IamLedger;
  /**
   * Fresh for each run (CONTRACT §21), written to stack.json: the key of the embedded servers and the queues' and
   * bus's endpoint (the gateway forwards with it; the CLI and tests sign with it); each function has its own session
   * key (functionRuntime).
   */
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** The bearer token of the diagnostic routes. */
  localRoutesToken: string;
  queues: Map<string, LocalQueue>;
  services: AwsServices;
  /** The template's functions by logical id. */
  functions: Map<string, FunctionRuntime>;
  /** The same functions by name and by ARN. */
  functionsByName: Map<string, FunctionRuntime>;
  policies?: TemplatePolicies;
  bus?: TemplateBus;
  /** Meta's app secret of this data dir (startNetwork). */
  appSecret?: string;
  dynamoEndpoint: string;
  s3Backend: string;
  /** The fault switch's file, with `testFaults` only. */
  faultFile?: string;
}

/** The configuration, the synthesized template (with the settings given in the environment) and the data dir. */
async function prepare(options: CdkStackOptions, cleanups: Cleanups): Promise<Run> {
  if (options.testFaults && !process.env.VITEST)
    throw new Error('testFaults is a test-only switch: refused outside vitest');
  const sourceEnv = options.env ?? process.env;
  const cfg = loadConfig(sourceEnv);
  const stage = sourceEnv.WPCRM_STAGE ?? 'dev';
  const ledger = new Ledger(parseMode(sourceEnv.WPCRM_IAM));
  // The settings this environment gives reach the template as `-c` options would on AWS (infra/aws/settings.ts): each
  // function gets them from its row, and a different set synthesizes into an output of its own.
  const context = settingsAsContext(sourceEnv);
  const given = Object.keys(context).length > 0 ? `-${shortHash(JSON.stringify(context))}` : '';
  const outdir =
    sourceEnv.WPCRM_CDK_OUT ??
    // Outside the repository, so that a bundle can't resolve a module from the repo's node_modules by accident.
    join(tmpdir(), `wpcrm-cdk-out-${shortHash(REPO_ROOT)}${given}`);
  const synth = await synthesize({ outdir, stage, context });

  const inMemory = cfg.local.dataDir === ':memory:';
  const dataDir = inMemory ? await mkdtemp(join(tmpdir(), 'wpcrm-cdk-')) : resolve(cfg.local.dataDir);
  await mkdir(join(dataDir, 'logs'), { recursive: true });
  if (inMemory) cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  return {
    sourceEnv,
    cfg,
    stage,
    synth,
    dataDir,
    inMemory,
    cleanups,
    ledger,
    credentials: newLocalCredentials(),
    localRoutesToken: randomBytes(32).toString('base64url'),
    queues: new Map(),
    services: new AwsServices(inMemory ? undefined : join(dataDir, 'aws-services.json'), cfg.aws.region, ACCOUNT),
    functions: new Map(),
    functionsByName: new Map(),
    dynamoEndpoint: '',
    s3Backend: '',
    faultFile: options.testFaults ? join(dataDir, 'fault.json') : undefined,
  };
}

const shortHash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

/**
 * The queues' and bus's endpoint, and the AWS gateway every function's call passes: it checks the call against the
 * caller's role and forwards it to the local server of its service.
 */
async function startGateway(run: Run) {
  const emulator = new AwsEmulator(run.queues, { put: (entries) => run.bus!.put(entries) }, run.credentials);
  const emulatorUrl = await emulator.listen();
  run.cleanups.push(() => emulator.close());
  const gateway = new AwsGateway(
    {
      describe: (http) => run.policies!.describe(http),
      authorize: (principal, request) => run.policies!.authorize(principal, request),
      // STS: the tenant-access role's sessions, each with its organisation's tag (CONTRACT §25).
      assumeRole: (caller, request, accessKeyId, now) => run.policies!.assumeRole(caller, request, accessKeyId, now),
      identityOf: (principal) => run.policies!.identityOf(principal),
    },
    run.ledger,
    () => ({
      dynamodb: run.dynamoEndpoint,
      s3: run.s3Backend,
      sqsAndEvents: emulatorUrl,
      localCredentials: run.credentials,
      services: run.services,
      invoke: (name, payload, type) => invokeApi(run.functionsByName, name, payload, type),
    }),
    ACCOUNT,
  );
  const awsEndpoint = await gateway.listen();
  run.cleanups.push(() => gateway.close());
  return { gateway, awsEndpoint, emulatorUrl };
}

/**
 * The HTTP API's front, listening at once (its port is the API's origin, which the template's values need) but with
 * no route until `goLive`; the diagnostic routes answer from the start.
 */
async function startApi(run: Run, { gateway }: { gateway: AwsGateway }) {
  const routes: ApiRoute[] = [];
  const apiOptions = {
    apiId: '',
    routes,
    localRoutes: {
      '/_local/iam': () => run.ledger.report(),
      // A fresh session of one function's role, for a test to show what that role may not do (CONTRACT §21): its
      // calls are checked as the function's, and reported apart, as `probe:<logical id>`.
      '/_local/assume-role': (request: IncomingMessage) => {
        const logicalId = new URL(request.url ?? '/', 'http://local').searchParams.get('function') ?? '';
        if (!run.functions.has(logicalId)) {
          return { error: `no function with the logical id ${JSON.stringify(logicalId)}` };
        }
        const session = newSessionCredentials();
        const principal = run.policies!.sessionFor(logicalId, session.accessKeyId, `probe-${logicalId}`.slice(0, 64));
        gateway.addPrincipal(session.accessKeyId, { ...principal, ledgerId: `${PROBE_PREFIX}${logicalId}` }, session);
        // The tenant-access role the function assumes for an organisation (CONTRACT §25), when it has one.
        const tenantAccessRoleArn = run.functions.get(logicalId)!.def.environment.TENANT_ACCESS_ROLE_ARN;
        return { ...session, tenantAccessRoleArn };
      },
    },
    localRoutesToken: run.localRoutesToken,
    onForbiddenInvoke: (route: ApiRoute) =>
      run.ledger.denied(`apigateway:${route.fn.def.logicalId}`, 'lambda:InvokeFunction', route.fn.def.arn),
  };
  const api = new TemplateHttpApi(apiOptions);
  const port = await api.listen(run.cfg.local.port);
  const origin = `http://127.0.0.1:${port}`;
  return {
    port,
    origin,
    url: `${origin}${BASE_PATH}`,
    close: () => api.close(),
    /** The template's routes and stage throttle: the running front reads these options per request. */
    goLive: (deployment: Deployment) => {
      const apiResource = resourcesOf(deployment.template, 'AWS::ApiGatewayV2::Api')[0];
      if (!apiResource) return;
      apiOptions.apiId = deployment.physical.get(apiResource[0])!.ref;
      routes.push(...apiRoutes(deployment, apiOptions.apiId));
      Object.assign(apiOptions, { throttle: stageThrottle(deployment.template) });
    },
  };
}

/** The template's resources as they run here: their physical names and attributes, and the roles' policies. */
function deploymentOf(run: Run, awsEndpoint: string, apiOrigin: string): Deployment {
  const { template, stackName } = run.synth;
  const region = run.cfg.aws.region;
  const context: DeploymentContext = { stackName, region, account: ACCOUNT, awsEndpoint, apiOrigin };
  const physical = physicalResources(template, context);
  const resolver = new TemplateResolver(context, physical);
  run.policies = new TemplatePolicies(template, resolver, physical, {
    defaultRegion: region,
    account: ACCOUNT,
    secretArn: (id) => run.services.secretArn(id),
    kmsKeyArn: (id) => run.services.keyArn(id),
    kmsKeyArnForCiphertext: (blob) => run.services.keyArnForCiphertext(blob),
  });
  const { policies, ledger, functionsByName } = run;
  return { template, context, resolver, physical, policies, ledger, functions: functionsByName };
}

/** Data resources, as CloudFormation would create them: the table and bucket on their servers, queues, secrets. */
async function startData(run: Run, deployment: Deployment) {
  const { template, physical, resolver } = deployment;
  const { cfg, credentials, inMemory, dataDir } = run;
  const tables = resourcesOf(template, 'AWS::DynamoDB::GlobalTable', 'AWS::DynamoDB::Table');
  const buckets = resourcesOf(template, 'AWS::S3::Bucket');
  if (buckets.length !== 1) {
    throw new Error(`the local runner serves exactly one bucket; the template has ${buckets.length}`);
  }
  const bucketName = physical.get(buckets[0]![0])!.ref;
  const dynamoPath = inMemory ? undefined : join(dataDir, 'dynamodb');
  const dynamo = await startDynamo({ port: cfg.local.dynamoPort, path: dynamoPath, guarded: credentials });
  run.cleanups.push(dynamo.close);
  run.dynamoEndpoint = dynamo.endpoint;
  const s3Options = { port: cfg.local.s3Port, directory: join(dataDir, 's3'), bucket: bucketName };
  const s3 = await startS3({ ...s3Options, guarded: credentials });
  run.cleanups.push(s3.close);
  run.s3Backend = s3.endpoint;
  const dynamoClient = new DynamoDBClient({ region: cfg.aws.region, endpoint: dynamo.endpoint, credentials });
  for (const [logicalId, resource] of tables) {
    await createTable(dynamoClient, physical.get(logicalId)!.ref, resource);
  }
  const tableName = physical.get(tables[0]![0])!.ref;

  createQueues(template, physical, resolver, run.queues);
  for (const [logicalId, resource] of resourcesOf(template, 'AWS::SecretsManager::Secret')) {
    const description = resource.Properties?.Description;
    run.services.ensureSecret(physical.get(logicalId)!.ref, initialSecretValue(resource), description);
  }
  for (const [logicalId, resource] of resourcesOf(template, 'AWS::SSM::Parameter')) {
    const props = resolver.resolve(resource.Properties ?? {}) as { Type?: string; Value?: string };
    run.services.ensureParameter(physical.get(logicalId)!.ref, props.Type ?? 'String', props.Value ?? '');
  }
  for (const [logicalId, resource] of resourcesOf(template, 'AWS::KMS::Key')) {
    const key = physical.get(logicalId)!;
    run.services.ensureKey(key.ref, key.attributes.Arn!, resource.Properties?.Description);
  }
  return { dynamo, s3, tableName, bucketName };
}

/**
 * The messaging network: the simulator, unless the user points WHATSAPP_GRAPH_URL elsewhere. A deployment refuses the
 * local stack's default app secret (CONTRACT §13): one of its own, per data dir, unless the user set
 * WHATSAPP_APP_SECRET; the simulator signs with it and the operator step (storeAppSecret) stores it.
 */
async function startNetwork(run: Run, apiOrigin: string) {
  const appSecret = run.sourceEnv.WHATSAPP_APP_SECRET ?? (await deploymentAppSecret(run.dataDir, run.inMemory));
  run.appSecret = appSecret;
  if (run.sourceEnv.WHATSAPP_GRAPH_URL) {
    return { simulator: undefined, simulatorPort: null, graphUrl: run.sourceEnv.WHATSAPP_GRAPH_URL };
  }
  const simulator = new WhatsAppSimulator({
    appSecret,
    webhookUrl: `${apiOrigin}${BASE_PATH}/network/whatsapp/webhook`,
  });
  const simulatorPort = await simulator.listen(run.cfg.local.simulatorPort);
  run.cleanups.push(() => simulator.close());
  return { simulator, simulatorPort, graphUrl: `http://127.0.0.1:${simulatorPort}/${GRAPH_VERSION}` };
}

/**
 * Every function of the template from its bundled asset (CDK's own framework functions aside: docs/local-stacks.md),
 * each behind its role's session in the gateway; closed (with their log files) after the IAM report is written.
 */
function startFunctions(
  run: Run,
  deployment: Deployment,
  gateway: { gateway: AwsGateway; awsEndpoint: string },
  graphUrl: string,
) {
  const local = localEnvironment(run.sourceEnv, graphUrl);
  const maxEnvironments = Number(run.sourceEnv.WPCRM_LAMBDA_MAX_ENVIRONMENTS ?? DEFAULT_MAX_ENVIRONMENTS);
  const logFds: number[] = [];
  run.cleanups.push(async () => {
    for (const fd of logFds) closeSync(fd);
  });
  const home = join(run.dataDir, 'lambda-home');
  mkdirSync(home, { recursive: true });
  for (const [logicalId, resource] of resourcesOf(deployment.template, 'AWS::Lambda::Function')) {
    if (resource.Metadata?.['aws:asset:is-bundled'] !== true) continue;
    const runtime = functionRuntime(run, deployment, gateway, { logicalId, resource, local, maxEnvironments, home });
    logFds.push(runtime.def.logFd);
    run.functions.set(logicalId, runtime);
    run.functionsByName.set(runtime.def.name, runtime);
    run.functionsByName.set(runtime.def.arn, runtime);
  }
  run.cleanups.push(async () => {
    await Promise.all([...run.functions.values()].map((fn) => fn.close()));
  });
  return { cleanupIndex: run.cleanups.length - 1 };
}

/**
 * What this machine sets for every function beyond the template: only what is truly local — the simulator's (or the
 * user's) Graph URL, webhook receivers on loopback, the local S3 host of download URLs. The service's settings reach
 * the functions through the template (prepare).
 */
function localEnvironment(sourceEnv: Record<string, string | undefined>, graphUrl: string): Record<string, string> {
  const local: Record<string, string> = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WHATSAPP_GRAPH_URL: graphUrl };
  for (const name of LOCAL_OVERRIDES) if (sourceEnv[name] !== undefined) local[name] = sourceEnv[name]!;
  return local;
}

/** One function: its execution role's session (a key pair and token of its own, fresh for this run), log file, runtime. */
function functionRuntime(
  run: Run,
  deployment: Deployment,
  { gateway, awsEndpoint }: { gateway: AwsGateway; awsEndpoint: string },
  spec: {
    logicalId: string;
    resource: TemplateResource;
    local: Record<string, string>;
    maxEnvironments: number;
    home: string;
  },
): FunctionRuntime {
  const { logicalId, resource } = spec;
  const { physical, resolver, policies, ledger } = deployment;
  const props = resource.Properties ?? {};
  const own = physical.get(logicalId)!;
  // The gateway verifies every signature of the function's calls with its session's key.
  const session = newSessionCredentials();
  const principal = policies.sessionFor(logicalId, session.accessKeyId, own.ref);
  gateway.addPrincipal(session.accessKeyId, principal, session);
  ledger.register(logicalId, policies.grantedPairs(logicalId));
  const logGroup = props.LoggingConfig?.LogGroup
    ? resolver.string(props.LoggingConfig.LogGroup)
    : `/aws/lambda/${own.ref}`;
  const logFd = openSync(join(run.dataDir, 'logs', `${logGroup.replace(/[^\w.-]+/g, '_')}.log`), 'a');
  const templateEnv = Object.fromEntries(
    Object.entries(props.Environment?.Variables ?? {}).map(([name, value]) => [name, resolver.string(value)]),
  );
  const codeDir = join(run.synth.outdir, String(resource.Metadata?.['aws:asset:path']));
  const region = run.cfg.aws.region;
  return new FunctionRuntime({
    // The Lambda service writes the function's logs (and traces, when active) with the execution role.
    onFirstInvoke: () => {
      const tracing = props.TracingConfig?.Mode === 'Active';
      for (const { action, resource } of lambdaServiceCalls({ region, account: ACCOUNT, logGroup, tracing })) {
        const decision = policies.authorize(principal, { action, resource, context: {} });
        if (decision.allowed) ledger.used(logicalId, decision.matchedGrants);
        else ledger.denied(logicalId, action, resource);
      }
    },
    logicalId,
    name: own.ref,
    arn: own.attributes.Arn!,
    codeDir,
    handler: String(props.Handler),
    timeoutSeconds: Number(props.Timeout ?? 3),
    memoryMb: Number(props.MemorySize ?? 128),
    maxEnvironments: spec.maxEnvironments,
    logFd,
    environment: {
      ...templateEnv,
      ...spec.local,
      ...localPoolSizes(templateEnv, spec.maxEnvironments),
      ...(run.faultFile
        ? { WPCRM_FAULT_FILE: run.faultFile, WPCRM_TEST_FAULTS: 'allow', WPCRM_FUNCTION: logicalId }
        : {}),
      ...lambdaEnvironment({ region, props, name: own.ref, logGroup, codeDir, home: spec.home }),
      // The execution role's session, and where its AWS calls go.
      AWS_ACCESS_KEY_ID: session.accessKeyId,
      AWS_SECRET_ACCESS_KEY: session.secretAccessKey,
      AWS_SESSION_TOKEN: session.sessionToken,
      AWS_ENDPOINT_URL: awsEndpoint,
    },
  });
}

/** The variables Lambda itself gives a function's processes (its session's aside). */
function lambdaEnvironment(fn: {
  region: string;
  props: Record<string, unknown> & { Runtime?: unknown; MemorySize?: unknown; Handler?: unknown };
  name: string;
  logGroup: string;
  codeDir: string;
  home: string;
}): Record<string, string> {
  return {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: fn.home,
    LANG: 'en_US.UTF-8',
    TZ: 'UTC',
    AWS_REGION: fn.region,
    AWS_DEFAULT_REGION: fn.region,
    AWS_EXECUTION_ENV: `AWS_Lambda_${fn.props.Runtime}`,
    AWS_LAMBDA_FUNCTION_NAME: fn.name,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.props.MemorySize ?? 128),
    AWS_LAMBDA_LOG_GROUP_NAME: fn.logGroup,
    AWS_LAMBDA_LOG_STREAM_NAME: 'local',
    LAMBDA_TASK_ROOT: fn.codeDir,
    _HANDLER: String(fn.props.Handler),
    AWS_CONFIG_FILE: join(fn.home, 'no-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(fn.home, 'no-credentials'),
    // Lambda runs Node.js 22; this machine may run 20, where the SDK warns once per process.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

/** What an operator does after the first deploy (docs/deployment.md): Meta's app secret and verify token. */
function storeAppSecret(run: Run, deployment: Deployment): void {
  const whatsAppSecret = deployment.template.Outputs?.WhatsAppSecretsArn;
  if (!whatsAppSecret) return;
  run.services.handle('secretsmanager.PutSecretValue', {
    SecretId: deployment.resolver.string(whatsAppSecret.Value),
    SecretString: JSON.stringify({ appSecret: run.appSecret, verifyToken: run.cfg.whatsapp.verifyToken }),
  });
}

/** The demo organisation, seeded once per data dir; a channel's token in Secrets Manager as on AWS. */
function seedDemoOnce(run: Run, data: { dynamo: { endpoint: string }; tableName: string }): Promise<DemoSeed> {
  return loadOrSeedDemo(run.dataDir, run.inMemory, {
    region: run.cfg.aws.region,
    endpoint: data.dynamo.endpoint,
    credentials: run.credentials,
    tableName: data.tableName,
    // On AWS a channel's token lives in Secrets Manager under the prefix the stack grants (docs/deployment.md).
    // Named under the organisation (CONTRACT §25): the tenant-access role reads `channels/<its org>/*` only.
    storeToken: async ({ orgId, channelId, value }) =>
      (
        run.services.handle('secretsmanager.CreateSecret', {
          Name: `${channelSecretsPrefix(run.stage)}${orgId}/${channelId}`,
          SecretString: value,
        }) as { ARN: string }
      ).ARN,
  });
}

/** Event sources, rules and schedules. */
function startEventSources(run: Run, deployment: Deployment): void {
  const consumers = startEventSourceMappings(deployment, run.queues);
  run.cleanups.push(async () => {
    await Promise.all(consumers.map((consumer) => consumer.stop()));
  });
  run.bus = new TemplateBus(deployment, run.queues);
  const schedules = startSchedules(deployment, run.cfg.sweepIntervalMs);
  run.cleanups.push(async () => {
    for (const timer of schedules.timers) clearInterval(timer);
    await Promise.allSettled([...schedules.running]);
  });
}

/**
 * stack.json, and the order of the cleanups: they run in reverse, so first the API stops taking requests and
 * finishes those in flight, then the schedules and queue mappings stop, and once no call can come any more the IAM
 * report of the whole run is written; the functions and the servers they call close after that.
 */
async function finishCleanups(run: Run, info: CdkStackInfo, functionsCleanup: number, closeApi: () => Promise<void>) {
  const removeStackFile = await writeStackFile(run.dataDir, info, run.inMemory);
  if (removeStackFile) run.cleanups.push(removeStackFile);
  const reportFile = join(run.dataDir, 'iam-report.json');
  run.cleanups.splice(functionsCleanup + 1, 0, async () => {
    await writeFile(reportFile, `${JSON.stringify(run.ledger.report(), null, 2)}\n`);
  });
  run.cleanups.push(closeApi);
}

/**
 * The operator's session of this run (stack.json `operator`), as the role of the template an operator assumes on AWS
 * for the channels' token secrets (output ChannelTokensRoleArn): `wpcrm` under start:cdk reaches the emulated
 * Secrets Manager only through the gateway, with this session, its calls checked against that role's policy and
 * reported (and, in enforce mode, refused) like a function's.
 */
function operatorSession(template: Template, policies: TemplatePolicies, gateway: AwsGateway, ledger: IamLedger) {
  const arn = template.Outputs?.ChannelTokensRoleArn?.Value as { 'Fn::GetAtt'?: [string, string] } | undefined;
  const roleId = arn?.['Fn::GetAtt']?.[0];
  if (!roleId) return undefined;
  const session = newSessionCredentials();
  const principal = policies.sessionForRole(roleId, session.accessKeyId, 'wpcrm-operator');
  gateway.addPrincipal(session.accessKeyId, principal, session);
  ledger.register(principal.id, policies.grantedPairsOfRole(roleId));
  return { credentials: session };
}

function parseMode(value: string | undefined): IamMode {
  if (value === undefined || value === '') return 'enforce';
  if (value === 'enforce' || value === 'report' || value === 'off') return value;
  throw new Error(`WPCRM_IAM must be enforce, report or off, not ${JSON.stringify(value)}`);
}

function resourcesOf(template: Template, ...types: string[]): [string, TemplateResource][] {
  return Object.entries(template.Resources).filter(([, resource]) => types.includes(resource.Type));
}

async function createTable(client: DynamoDBClient, tableName: string, resource: TemplateResource) {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    await waitForActiveTable(client, tableName);
    return;
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  const props = resource.Properties ?? {};
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: props.AttributeDefinitions,
      KeySchema: props.KeySchema,
      GlobalSecondaryIndexes: props.GlobalSecondaryIndexes?.map(
        (index: { IndexName: string; KeySchema: unknown; Projection: unknown }) => ({
          IndexName: index.IndexName,
          KeySchema: index.KeySchema,
          Projection: index.Projection,
        }),
      ),
    }),
  );
  await waitForActiveTable(client, tableName);
}

/** A new secret's value: SecretString, or generated as GenerateSecretString describes (CloudFormation's rules). */
function initialSecretValue(resource: TemplateResource): string {
  const props = resource.Properties ?? {};
  if (typeof props.SecretString === 'string') return props.SecretString;
  const spec = (props.GenerateSecretString ?? {}) as {
    SecretStringTemplate?: string;
    GenerateStringKey?: string;
    PasswordLength?: number;
    ExcludePunctuation?: boolean;
    ExcludeCharacters?: string;
  };
  const punctuation = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
  let alphabet = `ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789${spec.ExcludePunctuation ? '' : punctuation}`;
  for (const excluded of spec.ExcludeCharacters ?? '') alphabet = alphabet.replaceAll(excluded, '');
  const length = spec.PasswordLength ?? 32;
  const password = [...randomBytes(length)].map((byte) => alphabet[byte % alphabet.length]).join('');
  if (spec.SecretStringTemplate && spec.GenerateStringKey) {
    return JSON.stringify({ ...JSON.parse(spec.SecretStringTemplate), [spec.GenerateStringKey]: password });
  }
  return password;
}

function createQueues(
  template: Template,
  physical: Map<string, PhysicalResource>,
  resolver: TemplateResolver,
  queues: Map<string, LocalQueue>,
) {
  const entries = resourcesOf(template, 'AWS::SQS::Queue');
  const byArn = new Map<string, LocalQueue>();
  // Dead-letter queues first: a source queue's redrive policy names one.
  const ordered = entries.sort(
    ([, a], [, b]) => Number(Boolean(a.Properties?.RedrivePolicy)) - Number(Boolean(b.Properties?.RedrivePolicy)),
  );
  for (const [logicalId, resource] of ordered) {
    const own = physical.get(logicalId)!;
    const props = resolver.resolve(resource.Properties ?? {}) as {
      VisibilityTimeout?: number;
      RedrivePolicy?: { deadLetterTargetArn: string; maxReceiveCount: number };
    };
    const deadLetterQueue = props.RedrivePolicy ? byArn.get(props.RedrivePolicy.deadLetterTargetArn) : undefined;
    const queue = new LocalQueue(own.attributes.QueueName!, {
      visibilityTimeoutSeconds: Number(props.VisibilityTimeout ?? 30),
      maxReceiveCount: props.RedrivePolicy ? Number(props.RedrivePolicy.maxReceiveCount) : undefined,
      deadLetterQueue,
    });
    queues.set(own.attributes.QueueName!, queue);
    byArn.set(own.attributes.Arn!, queue);
  }
}

function queueByArn(queues: Map<string, LocalQueue>, arn: string): LocalQueue {
  const queue = queues.get(arn.split(':').pop()!);
  if (!queue) throw new Error(`no queue ${arn} in the template`);
  return queue;
}

/** Lambda's Invoke API for the gateway: the custom-resource framework and operators (`jwt-keys` rotation). */
async function invokeApi(
  functions: Map<string, FunctionRuntime>,
  name: string,
  payload: Buffer,
  type: string,
): Promise<{ payload: string; functionError?: string }> {
  const fn = functions.get(name);
  if (!fn)
    return { payload: JSON.stringify({ errorMessage: `Function not found: ${name}` }), functionError: 'Unhandled' };
  const event = payload.length > 0 ? JSON.parse(payload.toString('utf8')) : {};
  if (type === 'Event') {
    void fn.invoke(event);
    return { payload: '' };
  }
  const outcome = await fn.invoke(event);
  return outcome.ok
    ? { payload: outcome.payload }
    : { payload: JSON.stringify(outcome.error), functionError: 'Unhandled' };
}

/** What the provider framework does for a custom resource: invoke its handler with CloudFormation's event. */
async function runCustomResources(deployment: Deployment, dataDir: string, inMemory: boolean) {
  const { template, resolver, physical, functions, policies, ledger } = deployment;
  const stateFile = join(dataDir, 'custom-resources.json');
  const state: Record<string, { properties: string; physicalId: string; data: Record<string, string> }> =
    !inMemory && existsSync(stateFile) ? JSON.parse(await readFile(stateFile, 'utf8')) : {};
  const lambdaByArn = new Map([...functions.values()].map((fn) => [fn.def.arn, fn]));
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    if (!resource.Type.startsWith('Custom::') && resource.Type !== 'AWS::CloudFormation::CustomResource') continue;
    const properties = resolver.resolve(resource.Properties ?? {}) as Record<string, unknown> & {
      ServiceToken: string;
    };
    const provider = Object.entries(template.Resources).find(
      ([id, candidate]) =>
        candidate.Type === 'AWS::Lambda::Function' && physical.get(id)!.attributes.Arn === properties.ServiceToken,
    );
    if (!provider) throw new Error(`custom resource ${logicalId}: no function ${properties.ServiceToken}`);
    const [providerId, providerResource] = provider;
    const userArn = providerResource.Properties?.Environment?.Variables?.USER_ON_EVENT_FUNCTION_ARN;
    if (!userArn) continue; // CDK's bucket auto-delete: it acts on stack deletion only
    const handler = lambdaByArn.get(resolver.string(userArn));
    if (!handler) throw new Error(`custom resource ${logicalId}: its provider's handler is not a bundled function`);
    if (!policies.allowsInvoke(providerId, handler.def.arn)) {
      ledger.denied(providerId, 'lambda:InvokeFunction', handler.def.arn);
      if (ledger.mode === 'enforce') throw new Error(`${providerId} may not invoke ${handler.def.logicalId}`);
    }
    const serialized = JSON.stringify(properties);
    const previous = state[logicalId];
    if (previous?.properties === serialized) {
      physical.set(logicalId, { ref: previous.physicalId, attributes: previous.data });
      continue;
    }
    const outcome: InvokeOutcome = await handler.invoke({
      RequestType: previous ? 'Update' : 'Create',
      ServiceToken: properties.ServiceToken,
      ResponseURL: 'http://127.0.0.1/unused',
      StackId: `arn:aws:cloudformation:local:000000000000:stack/${deployment.context.stackName}/local`,
      RequestId: randomBytes(16).toString('hex'),
      LogicalResourceId: logicalId,
      ResourceType: resource.Type,
      ResourceProperties: properties,
      ...(previous
        ? { PhysicalResourceId: previous.physicalId, OldResourceProperties: JSON.parse(previous.properties) }
        : {}),
    });
    if (!outcome.ok) {
      throw new Error(`custom resource ${logicalId} failed: ${outcome.error.errorType}: ${outcome.error.errorMessage}`);
    }
    const result = JSON.parse(outcome.payload) as { PhysicalResourceId?: string; Data?: Record<string, string> } | null;
    const physicalId = result?.PhysicalResourceId ?? previous?.physicalId ?? logicalId;
    state[logicalId] = { properties: serialized, physicalId, data: result?.Data ?? {} };
    physical.set(logicalId, { ref: physicalId, attributes: result?.Data ?? {} });
  }
  if (!inMemory) await writeFile(stateFile, JSON.stringify(state, null, 2));
}

/**
 * A consumer's pool as it runs here (shared/queue/org-share.ts): the template's `<NAME>_POOL_SIZE` (the event source's
 * maximum concurrency), or the environments this run gives each function when they are fewer.
 */
function localPoolSizes(templateEnv: Record<string, string>, maxEnvironments: number): Record<string, string> {
  return Object.fromEntries(
    QUEUES.filter((queue) => templateEnv[poolSizeVariable(queue.name)] !== undefined).map((queue) => [
      poolSizeVariable(queue.name),
      String(Math.min(Number(templateEnv[poolSizeVariable(queue.name)]), maxEnvironments)),
    ]),
  );
}

function startEventSourceMappings(deployment: Deployment, queues: Map<string, LocalQueue>): QueueConsumer[] {
  const { template, resolver, functions, policies, ledger } = deployment;
  const consumers: QueueConsumer[] = [];
  for (const [logicalId, resource] of resourcesOf(template, 'AWS::Lambda::EventSourceMapping')) {
    const props = resolver.resolve(resource.Properties ?? {}) as {
      EventSourceArn: string;
      FunctionName: string;
      BatchSize?: number;
      ScalingConfig?: { MaximumConcurrency?: number };
      FunctionResponseTypes?: string[];
      Enabled?: boolean;
    };
    if (props.Enabled === false || !props.EventSourceArn.startsWith('arn:aws:sqs:')) continue;
    const fn = functions.get(props.FunctionName);
    if (!fn) throw new Error(`event source mapping ${logicalId}: no function ${props.FunctionName}`);
    const queue = queueByArn(queues, props.EventSourceArn);
    // Lambda polls with the function's execution role: creating the mapping fails without these.
    const { missing, matchedGrants } = policies.missingQueueConsumerActions(fn.def.logicalId, props.EventSourceArn);
    ledger.used(fn.def.logicalId, matchedGrants);
    for (const action of missing) ledger.denied(fn.def.logicalId, action, props.EventSourceArn);
    if (missing.length > 0 && ledger.mode === 'enforce') {
      throw new Error(`${fn.def.logicalId}'s role cannot consume ${props.EventSourceArn}: ${missing.join(', ')}`);
    }
    consumers.push(
      new QueueConsumer(queue, (event: SQSEvent) => invokeForBatch(fn, event), {
        batchSize: Number(props.BatchSize ?? 10),
        // Lambda never runs more batches than the function may run invocations: here its environments, so a batch
        // is received only when one is free (more would wait, received, behind the running ones).
        maxConcurrency: Math.min(
          Number(props.ScalingConfig?.MaximumConcurrency ?? fn.def.maxEnvironments),
          fn.def.maxEnvironments,
        ),
        reportBatchItemFailures: props.FunctionResponseTypes?.includes('ReportBatchItemFailures') ?? false,
      }),
    );
  }
  return consumers;
}

async function invokeForBatch(fn: FunctionRuntime, event: SQSEvent): Promise<SQSBatchResponse | undefined> {
  const outcome = await fn.invoke(event);
  if (!outcome.ok) throw new Error(`${outcome.error.errorType}: ${outcome.error.errorMessage}`);
  return (JSON.parse(outcome.payload) as SQSBatchResponse | null) ?? undefined;
}

interface RuleTarget {
  logicalId: string;
  ruleArn: string;
  arn: string;
  deadLetterArn?: string;
  /** SqsParameters.MessageGroupId: the group of every message the target sends (a fixed value, as AWS documents it). */
  messageGroupId?: string;
}

/**
 * The template's event buses: PutEvents entries become events, each enabled rule on the entry's bus whose pattern
 * matches sends the event to its targets, as EventBridge does with the target's resource policy checked (a queue
 * policy, a Lambda permission); what may not be delivered goes to the target's dead-letter queue.
 */
class TemplateBus implements EventBusBackend {
  #rules: { busName: string; pattern: EventPattern; targets: RuleTarget[] }[] = [];

  constructor(
    private readonly deployment: Deployment,
    private readonly queues: Map<string, LocalQueue>,
  ) {
    const { template, resolver, physical } = deployment;
    for (const [logicalId, resource] of resourcesOf(template, 'AWS::Events::Rule')) {
      const props = resolver.resolve(resource.Properties ?? {}) as {
        EventBusName?: string;
        EventPattern?: EventPattern;
        State?: string;
        Targets?: {
          Arn: string;
          DeadLetterConfig?: { Arn: string };
          Input?: unknown;
          InputTransformer?: unknown;
          SqsParameters?: { MessageGroupId?: string };
        }[];
      };
      if (!props.EventPattern || props.State === 'DISABLED') continue;
      const ruleArn = physical.get(logicalId)!.attributes.Arn!;
      for (const target of props.Targets ?? []) {
        if (target.Input !== undefined || target.InputTransformer !== undefined) {
          throw new Error(`rule ${logicalId}: target input transformation is not emulated locally`);
        }
      }
      this.#rules.push({
        busName: (props.EventBusName ?? 'default').split('/').pop()!,
        pattern: props.EventPattern,
        targets: (props.Targets ?? []).map((target) => ({
          logicalId,
          ruleArn,
          arn: target.Arn,
          deadLetterArn: target.DeadLetterConfig?.Arn,
          messageGroupId: target.SqsParameters?.MessageGroupId,
        })),
      });
    }
  }

  put(entries: PutEventsEntry[]): { EventId?: string; ErrorCode?: string; ErrorMessage?: string }[] {
    return entries.map((entry) => {
      let detail: unknown;
      try {
        detail = JSON.parse(entry.Detail ?? '{}');
      } catch {
        return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is not valid JSON' };
      }
      if (!entry.Source || !entry.DetailType) {
        return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Source and DetailType are required' };
      }
      const event = {
        version: '0',
        id: crypto.randomUUID(),
        'detail-type': entry.DetailType,
        source: entry.Source,
        account: ACCOUNT,
        time: new Date(entry.Time ?? Date.now()).toISOString(),
        region: 'local',
        resources: entry.Resources ?? [],
        detail,
      };
      const busName = (entry.EventBusName ?? 'default').split('/').pop();
      for (const rule of this.#rules) {
        if (rule.busName !== busName || !matchesPattern(rule.pattern, event)) continue;
        for (const target of rule.targets) this.#deliver(target, event);
      }
      return { EventId: event.id };
    });
  }

  #deliver(target: RuleTarget, event: { id: string }) {
    const { policies, ledger, functions } = this.deployment;
    const body = JSON.stringify(event);
    const principal = `events:${target.logicalId}`;
    if (target.arn.startsWith('arn:aws:sqs:')) {
      if (policies.serviceMay('events.amazonaws.com', 'sqs:SendMessage', target.arn, target.ruleArn)) {
        return void queueByArn(this.queues, target.arn).send(body, 0, target.messageGroupId);
      }
      ledger.denied(principal, 'sqs:SendMessage', target.arn);
    } else if (target.arn.startsWith('arn:aws:lambda:')) {
      const fn = functions.get(target.arn);
      if (fn && policies.serviceMay('events.amazonaws.com', 'lambda:InvokeFunction', target.arn, target.ruleArn)) {
        return void invokeAsync(fn);
      }
      ledger.denied(principal, 'lambda:InvokeFunction', target.arn);
    }
    if (target.deadLetterArn) queueByArn(this.queues, target.deadLetterArn).send(body);
  }
}

/** Lambda's asynchronous invocation: retried on a function error as the function's EventInvokeConfig says. */
async function invokeAsync(fn: FunctionRuntime, event: unknown = {}, retries = 2, retryDelayMs = 0): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const outcome = await fn.invoke(event);
    if (outcome.ok || attempt >= retries) return;
    await new Promise((resolveDelay) => setTimeout(resolveDelay, retryDelayMs * (attempt + 1)).unref());
  }
}

function startSchedules(deployment: Deployment, localMinuteMs: number) {
  const { template, resolver, physical, functions, policies, ledger } = deployment;
  const timers: NodeJS.Timeout[] = [];
  const running = new Set<Promise<void>>();
  const invokeConfigs = new Map<string, number>();
  for (const [, resource] of resourcesOf(template, 'AWS::Lambda::EventInvokeConfig')) {
    const props = resolver.resolve(resource.Properties ?? {}) as {
      FunctionName: string;
      MaximumRetryAttempts?: number;
    };
    invokeConfigs.set(props.FunctionName, Number(props.MaximumRetryAttempts ?? 2));
  }
  for (const [logicalId, resource] of resourcesOf(template, 'AWS::Events::Rule')) {
    const props = resolver.resolve(resource.Properties ?? {}) as {
      ScheduleExpression?: string;
      State?: string;
      Targets?: { Arn: string }[];
    };
    if (!props.ScheduleExpression || props.State === 'DISABLED') continue;
    const rate = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(props.ScheduleExpression);
    if (!rate) throw new Error(`rule ${logicalId}: ${props.ScheduleExpression} is not emulated locally (rate only)`);
    const minutes =
      Number(rate[1]) *
      ({ minute: 1, minutes: 1, hour: 60, hours: 60, day: 1440, days: 1440 } as const)[rate[2] as 'minute'];
    const ruleArn = physical.get(logicalId)!.attributes.Arn!;
    for (const target of props.Targets ?? []) {
      const fn = functions.get(target.Arn);
      if (!fn) throw new Error(`rule ${logicalId}: target ${target.Arn} is not a function of the template`);
      const retries = invokeConfigs.get(fn.def.name) ?? invokeConfigs.get(fn.def.arn) ?? 2;
      let inFlight: Promise<void> | undefined;
      const timer = setInterval(() => {
        if (inFlight) return; // the next tick comes; a sweep still running is not started twice locally
        if (!policies.serviceMay('events.amazonaws.com', 'lambda:InvokeFunction', fn.def.arn, ruleArn)) {
          return ledger.denied(`events:${logicalId}`, 'lambda:InvokeFunction', fn.def.arn);
        }
        const scheduled = {
          version: '0',
          id: crypto.randomUUID(),
          'detail-type': 'Scheduled Event',
          source: 'aws.events',
          account: ACCOUNT,
          time: new Date().toISOString(),
          region: 'local',
          resources: [ruleArn],
          detail: {},
        };
        inFlight = invokeAsync(fn, scheduled, retries, localMinuteMs).finally(() => {
          running.delete(inFlight!);
          inFlight = undefined;
        });
        running.add(inFlight);
      }, minutes * localMinuteMs);
      timer.unref();
      timers.push(timer);
    }
  }
  return { timers, running };
}

function apiRoutes(deployment: Deployment, apiId: string): ApiRoute[] {
  const { template, resolver, physical, functions, policies } = deployment;
  const integrations = new Map(
    resourcesOf(template, 'AWS::ApiGatewayV2::Integration').map(([logicalId, resource]) => [
      physical.get(logicalId)!.ref,
      resolver.resolve(resource.Properties ?? {}) as {
        IntegrationType: string;
        IntegrationUri: string;
        PayloadFormatVersion?: string;
        TimeoutInMillis?: number;
      },
    ]),
  );
  const routeSettings = (stageProps(template)?.RouteSettings ?? {}) as Record<
    string,
    { ThrottlingRateLimit?: number; ThrottlingBurstLimit?: number }
  >;
  return resourcesOf(template, 'AWS::ApiGatewayV2::Route').map(([logicalId, resource]) => {
    const props = resolver.resolve(resource.Properties ?? {}) as { RouteKey: string; Target?: string };
    const integration = integrations.get(String(props.Target).replace(/^integrations\//, ''));
    if (integration?.IntegrationType !== 'AWS_PROXY' || integration.PayloadFormatVersion !== '2.0') {
      throw new Error(`route ${logicalId}: only Lambda proxy integrations with payload format 2.0 are emulated`);
    }
    const fn = functions.get(integration.IntegrationUri);
    if (!fn) throw new Error(`route ${logicalId}: ${integration.IntegrationUri} is not a function of the template`);
    const [method, path] = props.RouteKey === '$default' ? ['ANY', undefined] : props.RouteKey.split(' ');
    const sourceArn = `arn:aws:execute-api:${fn.def.arn.split(':')[3]}:${ACCOUNT}:${apiId}/$default/${
      props.RouteKey === '$default' ? '$default' : `${method}${path}`
    }`;
    const settings = routeSettings[props.RouteKey];
    return {
      routeKey: props.RouteKey,
      method: method!,
      path,
      fn,
      permitted: policies.serviceMay('apigateway.amazonaws.com', 'lambda:InvokeFunction', fn.def.arn, sourceArn),
      timeoutMs: Number(integration.TimeoutInMillis ?? 30_000),
      throttle:
        settings?.ThrottlingRateLimit !== undefined
          ? { rateLimit: settings.ThrottlingRateLimit, burstLimit: settings.ThrottlingBurstLimit ?? 0 }
          : undefined,
    };
  });
}

function stageProps(template: Template) {
  return resourcesOf(template, 'AWS::ApiGatewayV2::Stage')[0]?.[1].Properties;
}

function stageThrottle(template: Template): { rateLimit: number; burstLimit: number } | undefined {
  const settings = stageProps(template)?.DefaultRouteSettings as
    | { ThrottlingRateLimit?: number; ThrottlingBurstLimit?: number }
    | undefined;
  if (settings?.ThrottlingRateLimit === undefined) return undefined;
  return { rateLimit: settings.ThrottlingRateLimit, burstLimit: settings.ThrottlingBurstLimit ?? 0 };
}

async function loadOrSeedDemo(
  dataDir: string,
  inMemory: boolean,
  target: {
    region: string;
    endpoint: string;
    credentials: { accessKeyId: string; secretAccessKey: string };
    tableName: string;
    storeToken: (token: { orgId: string; channelId: string; value: string }) => Promise<string>;
  },
): Promise<DemoSeed> {
  const file = join(dataDir, 'demo.json');
  if (!inMemory && existsSync(file)) return JSON.parse(await readFile(file, 'utf8')) as DemoSeed;
  const db = createDocumentClient({
    region: target.region,
    endpoint: target.endpoint,
    credentials: target.credentials,
  });
  const demo = await seedDemo(
    {
      clock: systemClock,
      ids: ulidIds(),
      identity: new DynamoIdentityStore(db, target.tableName),
      crm: new DynamoCrmStore(db, target.tableName),
    },
    { storeToken: target.storeToken },
  );
  if (!inMemory) await writeFile(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return demo;
}

/** A random Meta app secret for this data dir (kept in it, so that a restart keeps verifying the same signatures). */
async function deploymentAppSecret(dataDir: string, inMemory: boolean): Promise<string> {
  const file = join(dataDir, 'whatsapp-app-secret');
  if (!inMemory && existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const secret = randomBytes(24).toString('hex');
  if (!inMemory) await writeFile(file, secret, { mode: 0o600 });
  return secret;
}
