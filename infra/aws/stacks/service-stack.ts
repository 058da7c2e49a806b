import { CfnOutput, Duration, NestedStack, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { LEADING_KEY_PATTERNS } from '#shared/adapters/dynamodb/keys';
import { ROUTES } from '#shared/routes/index';
import { type RouteDef, takesCursor } from '#shared/routes/route';
import type { AlarmEndpoints } from '../alarm-endpoints.ts';
import { CONCERNS, type Concern } from '../concerns.ts';
import { AppFunction } from '../constructs/app-function.ts';
import { DataStore } from '../constructs/data-store.ts';
import { EventRules } from '../constructs/event-rules.ts';
import { JwtKeys } from '../constructs/jwt-keys.ts';
import { denyGrantsButForAwsResources } from '../constructs/kms.ts';
import { QueueWorker } from '../constructs/queue-worker.ts';
import { ServiceAlarms } from '../constructs/service-alarms.ts';
import { ServiceApi, type Throttle } from '../constructs/service-api.ts';
import { ServiceDashboard } from '../constructs/service-dashboard.ts';
import { TenantAccessRole } from '../constructs/tenant-access-role.ts';
import type { EdgeConfig } from '../edge.ts';
import { functionFiles } from '../function-files.ts';
import {
  actsForOrganisations,
  busRulesOf,
  FUNCTIONS,
  type FunctionRow,
  functionRow,
  queuesOf,
  schedulesOf,
} from '../functions.ts';
import { pascalCase } from '../naming.ts';
import { type GivenSettings, settingsEnvironment, validateSettings } from '../settings.ts';
import { removalPolicyFor, type Stage } from '../stage.ts';
import { channelSecretsPrefix } from '../tenant-access.ts';

export interface ServiceStackProps extends StackProps {
  stage: Stage;
  /** The `iss` of issued tokens (JWT_ISSUER). */
  jwtIssuer: string;
  /** The `aud` of issued tokens (JWT_AUDIENCE). */
  jwtAudience: string;
  /**
   * The settings given for this deployment (shared/config/settings.ts; `-c <setting in camelCase>=…`), each written
   * into the environment of the functions whose rows read it (infra/aws/functions.ts). REPORT_RETENTION_SECONDS also
   * sets the reports bucket's lifecycle rule.
   * @default - every setting at its default
   */
  settings?: GivenSettings;
  /**
   * CloudFront and AWS WAF in front of the API (EdgeStack); the API then answers only through them.
   * @default - none (dev only)
   */
  edge?: EdgeConfig;
  /**
   * API Gateway's throttle quota of the account and region (`-c apiAccountRateLimit=… -c apiAccountBurstLimit=…`
   * after a quota raise): no route takes more than 60 % of it.
   * @default API_ACCOUNT_THROTTLE_DEFAULT (10,000 requests/s, burst 5,000)
   */
  apiAccountThrottle?: Throttle;
  /**
   * The operator's endpoints that the alarm topic notifies (`-c alarmEmail=… -c alarmHttpsEndpoint=…`).
   * @default - none: the operator subscribes to AlarmTopicArn by hand
   */
  alarmEndpoints?: AlarmEndpoints;
  /**
   * The API's routes (a test adds one of its own).
   * @default ROUTES (shared/routes/index.ts)
   */
  routes?: readonly RouteDef[];
  /**
   * One row per function (a test adds one of its own).
   * @default FUNCTIONS (infra/aws/functions.ts)
   */
  functions?: Readonly<Record<string, FunctionRow>>;
}

/** What the functions' rows and the routes say about each function, read once. */
interface Deployment {
  /** The functions behind a route or the fallback: they answer HTTP. */
  servesHttp: ReadonlySet<string>;
  /** The functions behind an authenticated route: they verify tokens and count quotas. */
  verifiesTokens: ReadonlySet<string>;
  /** The functions behind a route that takes a cursor: they read the cursor key. */
  pagesLists: ReadonlySet<string>;
  /** The function of the `$default` route. */
  fallback: string;
}

/**
 * The service: one stack for operators (its outputs — TableName for `wpcrm --stack`, ApiUrl, … — live in one place
 * and no cross-stack export pins the data), made of nested stacks by concern (infra/aws/concerns.ts) so that no
 * template nears CloudFormation's limits (CONTRACT §22, docs/architecture.md). The service stack keeps the
 * state (table, bucket, bus, keys, secrets), the HTTP API with its stage, the alarm topic and the dashboard; each
 * concern's stack keeps its functions, routes, queues, rules and their alarms. What each function is — its concern,
 * access, settings, alarms, queue or schedule — is its row of infra/aws/functions.ts. Stateful resources are retained
 * outside dev.
 */
export class ServiceStack extends Stack {
  readonly data: DataStore;
  readonly jwtKeys: JwtKeys;
  readonly whatsAppSecrets: Secret;
  readonly cursorKey: Secret;
  readonly webhookSecretsKey: Key;
  /** The stage's tenant-access role: an organisation's data, for the functions acting for it (CONTRACT §25). */
  readonly tenantAccess: TenantAccessRole;
  readonly alarmTopic: Topic;
  readonly alarms: ServiceAlarms;
  readonly dashboard: ServiceDashboard;
  readonly api: ServiceApi;
  readonly workers: ReadonlyMap<string, QueueWorker>;
  /** Every function running service code, by its `functions/` folder. */
  readonly functions: ReadonlyMap<string, AppFunction>;
  /** The nested stack of each concern. */
  readonly concerns: ReadonlyMap<Concern, NestedStack>;
  readonly #props: ServiceStackProps;
  readonly #settings: GivenSettings;
  readonly #routes: readonly RouteDef[];
  readonly #rows: Readonly<Record<string, FunctionRow>>;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    this.#props = props;
    this.#settings = validateSettings(props.settings ?? {});
    this.#routes = props.routes ?? ROUTES;
    this.#rows = props.functions ?? FUNCTIONS;
    const removalPolicy = removalPolicyFor(props.stage);
    const reportRetentionSeconds = Number(this.#settings.REPORT_RETENTION_SECONDS ?? 604_800);
    this.data = new DataStore(this, 'Data', { removalPolicy, reportRetentionSeconds });
    // Every alarm notifies one topic that operators subscribe to (docs/operations.md); each is made beside what it
    // watches, with the topic passed in.
    this.alarms = new ServiceAlarms(this, 'Alarms', {
      table: this.data.table,
      originCertificateArn: props.edge?.originCertificateArn,
      originOwnershipCertificateArn: props.edge?.originOwnershipCertificateArn,
      endpoints: props.alarmEndpoints,
      removalPolicy,
    });
    this.alarmTopic = this.alarms.topic;
    this.jwtKeys = new JwtKeys(this, 'JwtKeys', {
      removalPolicy,
      parameterName: `/wp-crm/${props.stage}/jwt/public-keys`,
      table: this.data.table,
      alarmTopic: this.alarmTopic,
    });
    this.webhookSecretsKey = this.#webhookSecretsKey();
    this.tenantAccess = new TenantAccessRole(this, 'TenantAccess', {
      stage: props.stage,
      table: this.data.table,
      reports: this.data.reports,
      webhookSecretsKey: this.webhookSecretsKey,
    });
    this.whatsAppSecrets = this.#whatsAppSecrets();
    this.cursorKey = this.#cursorKey();

    this.concerns = this.#concernStacks();
    const deployment = deploymentOf(this.#rows, this.#routes);
    this.workers = this.#workers();
    this.functions = this.#functions(deployment);
    for (const [fn, appFunction] of this.functions) this.#wire(fn, appFunction, deployment);

    this.api = new ServiceApi(this, 'Http', {
      routes: this.#routes,
      functionFor: this.#lambdaOf,
      scopeFor: (route) => this.#scopeOf(route.fn),
      accountThrottle: props.apiAccountThrottle,
      fallback: this.#lambdaOf(deployment.fallback),
      logRemovalPolicy: removalPolicy,
      edge: props.edge,
    });
    this.alarms.watchApi(this.api.api);
    this.#eventRules();
    this.dashboard = new ServiceDashboard(this, 'Operations', {
      functions: this.functions,
      workers: this.workers.values(),
      api: this.api.api,
      table: this.data.table,
    });
    this.#outputs(this.channelTokensRole(props.stage));
  }

  get #removalPolicy() {
    return removalPolicyFor(this.#props.stage);
  }

  /** Customers' webhook signing secrets are stored encrypted under this key (CONTRACT §7). */
  #webhookSecretsKey(): Key {
    const key = new Key(this, 'WebhookSecretsKey', {
      description: 'Encrypts webhook signing secrets at rest',
      enableKeyRotation: true,
      removalPolicy: this.#removalPolicy,
    });
    denyGrantsButForAwsResources(key);
    return key;
  }

  /**
   * Meta's webhook verify token is generated; Meta's app secret is not shipped at all (no placeholder): the operator
   * adds it after the first deploy (docs/deployment.md), and until then the webhook answers 503 (CONTRACT §13).
   */
  #whatsAppSecrets(): Secret {
    const secret = new Secret(this, 'WhatsAppSecrets', {
      description: 'WhatsApp app secret and webhook verify token: {"appSecret":"…","verifyToken":"…"}',
      removalPolicy: this.#removalPolicy,
      generateSecretString: {
        secretStringTemplate: JSON.stringify({}),
        generateStringKey: 'verifyToken',
        passwordLength: 48,
        excludePunctuation: true,
      },
    });
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: "Meta's app secret is rotated in Meta's console; the operator updates this secret then.",
    });
    return secret;
  }

  /**
   * Authenticates list cursors (CONTRACT §13) and event iterators (§20). Generated once; a new value (put-secret-value)
   * ends the list cursors then open, while the replaced value (AWSPREVIOUS) opens iterators for the events' retention.
   */
  #cursorKey(): Secret {
    const secret = new Secret(this, 'CursorKey', {
      description: 'HMAC key of the API list cursors and event iterators (generated; no operator action)',
      removalPolicy: this.#removalPolicy,
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
    });
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'A cursor lives for one listing, an iterator for the events retention (the replaced value still opens it); ' +
        'putting a new value by hand is the whole rotation (docs/operations.md).',
    });
    return secret;
  }

  #concernStacks(): Map<Concern, NestedStack> {
    return new Map(
      (Object.entries(CONCERNS) as [Concern, string][]).map(([concern, description]) => [
        concern,
        new NestedStack(this, concern, { description: `wp-crm ${this.#props.stage}: ${description}` }),
      ]),
    );
  }

  #rowOf(fn: string): FunctionRow {
    return functionRow(fn, this.#rows);
  }

  /** The nested stack of `fn`'s concern. */
  #scopeOf(fn: string): NestedStack {
    return this.concerns.get(this.#rowOf(fn).concern)!;
  }

  /** Each worker's queue, DLQ, consumer and their alarms, in its consumer's concern. */
  #workers(): Map<string, QueueWorker> {
    return new Map(
      queuesOf(this.#rows).map((def) => {
        const row = this.#rowOf(def.consumer);
        const worker = new QueueWorker(this.#scopeOf(def.consumer), pascalCase(def.name), {
          def,
          logRemovalPolicy: this.#removalPolicy,
          alarmTopic: this.alarmTopic,
          consumer: { files: functionFiles(def.consumer), alerts: row.alerts },
        });
        return [def.name, worker];
      }),
    );
  }

  /**
   * Every function of the table: the workers' consumers first, then the routes' functions in the routes' order, the
   * fallback and the sweepers (the dashboard lists them so).
   */
  #functions(deployment: Deployment): Map<string, AppFunction> {
    const functions = new Map([...this.workers.values()].map((worker) => [worker.def.consumer, worker.consumer]));
    const order = [
      ...this.#routes.map((route) => route.fn),
      deployment.fallback,
      ...schedulesOf(this.#rows).map((schedule) => schedule.fn),
    ];
    for (const fn of order) {
      if (functions.has(fn)) continue;
      const row = this.#rowOf(fn);
      functions.set(
        fn,
        new AppFunction(this.#scopeOf(fn), pascalCase(fn), {
          fn,
          timeout: row.timeoutSeconds === undefined ? undefined : Duration.seconds(row.timeoutSeconds),
          memorySize: row.memoryMb,
          files: functionFiles(fn),
          logRemovalPolicy: this.#removalPolicy,
          alarmTopic: this.alarmTopic,
          alerts: row.alerts,
        }),
      );
    }
    return functions;
  }

  /** Each variable of `fn` together with the least-privilege grant it needs, as its row and its routes say. */
  #wire(fn: string, appFunction: AppFunction, deployment: Deployment): void {
    const row = this.#rowOf(fn);
    const { access } = row;
    const verifiesTokens = deployment.verifiesTokens.has(fn);
    appFunction
      .addEnvironment('JWT_ISSUER', this.#props.jwtIssuer)
      .addEnvironment('JWT_AUDIENCE', this.#props.jwtAudience);
    this.#bindData(fn, appFunction, verifiesTokens);
    if (verifiesTokens || access.servesPublicKeys) appFunction.bindPublicKeysItem(this.data.table);
    if (verifiesTokens || access.checksAccess) appFunction.bindAccessStatus(this.data.table);
    if (access.signsTokens) appFunction.bindSigningKeys(this.jwtKeys.secret);
    if (deployment.pagesLists.has(fn)) appFunction.bindCursorKey(this.cursorKey);
    // Behind the edge the caller's origin is the edge's, and its address the one CloudFront saw (shared/http/edge.ts).
    const { edge } = this.#props;
    if (edge && deployment.servesHttp.has(fn))
      appFunction.addEnvironment('WPCRM_EDGE_ORIGIN', `https://${edge.domainName}`);
    const settings = settingsEnvironment(row, verifiesTokens, this.#settings);
    for (const [name, value] of Object.entries(settings)) appFunction.addEnvironment(name, value);
    if (access.publishesEvents) appFunction.bindEventBus(this.data.bus);
    if (access.verifiesNetworkWebhooks) appFunction.bindWhatsAppSecrets(this.whatsAppSecrets);
    for (const queue of access.sendsTo ?? []) {
      const worker = this.workers.get(queue);
      if (!worker) throw new Error(`${fn} sends to ${queue}, which no row of FUNCTIONS consumes`);
      worker.bindProducer(appFunction);
    }
  }

  /**
   * The table, the bucket and the key: a function acting for organisations gets their names and the tenant-access role
   * (CONTRACT §25), and its own role only the partitions of no organisation (`global`); any other function its
   * `tableKeys` partitions, and its quota windows if it verifies tokens.
   */
  #bindData(fn: string, appFunction: AppFunction, verifiesTokens: boolean): void {
    const { access } = this.#rowOf(fn);
    const tenant = actsForOrganisations(access);
    if (tenant && access.tableKeys) {
      throw new Error(`${fn} acts for organisations: its own partitions are its row's access.global, not tableKeys`);
    }
    appFunction.bindTable(this.data.table, tenant ? undefined : access.table, {
      leadingKeys: access.tableKeys,
      indexes: access.indexes,
      batchGets: access.batchGets,
      batchWrites: access.batchWrites,
    });
    if (tenant) appFunction.bindTenantAccess(this.tenantAccess);
    if (access.global) appFunction.bindGlobalPartitions(this.data.table, access.global);
    if (verifiesTokens && !tenant) {
      appFunction.bindRequestQuota(this.data.table, LEADING_KEY_PATTERNS.requestQuota);
    }
    if (access.reports) appFunction.bindReportsBucket(this.data.reports);
    if (access.webhookSecrets) appFunction.bindWebhookSecretsKey(this.webhookSecretsKey);
  }

  readonly #lambdaOf = (fn: string) => {
    const appFunction = this.functions.get(fn);
    if (!appFunction) throw new Error(`no function ${fn}: it has no row in FUNCTIONS (infra/aws/functions.ts)`);
    return appFunction.fn;
  };

  /**
   * Each concern's rules and schedules, with a dead-letter queue of its own: a queue policy stays a few statements
   * long however many concerns the service grows (SQS allows 10 conditions per policy).
   */
  #eventRules(): void {
    const queues = new Map([...this.workers].map(([name, worker]) => [name, worker.queue]));
    for (const [concern, scope] of this.concerns) {
      const rules = busRulesOf(this.#rows).filter((rule) => {
        const worker = this.workers.get(rule.targetQueue);
        if (!worker) throw new Error(`bus rule ${rule.id}: no queue named ${rule.targetQueue}`);
        return this.#rowOf(worker.def.consumer).concern === concern;
      });
      const schedules = schedulesOf(this.#rows).filter((schedule) => this.#rowOf(schedule.fn).concern === concern);
      new EventRules(scope, 'Events', {
        bus: this.data.bus,
        rules,
        queues,
        schedules,
        functionFor: this.#lambdaOf,
        alarmTopic: this.alarmTopic,
      });
    }
  }

  #outputs(channelTokens: iam.Role): void {
    const output = (id: string, value: string, description: string, exported = false) =>
      new CfnOutput(this, id, { value, description, exportName: exported ? `${this.stackName}-${id}` : undefined });
    output('ApiUrl', this.api.url, 'Base URL of the API, including /api/wp-crm');
    output('TableName', this.data.table.tableName, 'The DynamoDB table (wpcrm --stack reads it)');
    output('ReportsBucketName', this.data.reports.bucketName, 'S3 bucket of the report CSV files');
    output('EventBusName', this.data.bus.eventBusName, 'EventBridge bus of the domain events', true);
    output('EventBusArn', this.data.bus.eventBusArn, 'EventBridge bus ARN, for your own rules and targets', true);
    output(
      'JwtKeysFunctionName',
      this.jwtKeys.manager.fn.functionName,
      'Invoke with {"action":"add"|"activate"|"retire"} to rotate the JWT keys',
    );
    output(
      'WhatsAppSecretsArn',
      this.whatsAppSecrets.secretArn,
      'Set appSecret (Meta app secret) and verifyToken here',
    );
    output(
      'AlarmTopicArn',
      this.alarmTopic.topicArn,
      'SNS topic every alarm notifies: subscribe the on-call address, or deploy with -c alarmEmail=…',
    );
    output(
      'JwtSigningSecretArn',
      this.jwtKeys.secret.secretArn,
      'Secrets Manager secret holding the private JWT key set',
    );
    output(
      'DashboardUrl',
      this.dashboard.url,
      'CloudWatch dashboard: API, functions, queues, DLQs, DynamoDB, business counts',
    );
    output(
      'ChannelTokensRoleArn',
      channelTokens.roleArn,
      "Assume for the channels' token secrets: create one, put a new token, delete them (wpcrm org delete)",
    );
  }

  /**
   * The operator's rights over the channels' token secrets (README, Runbook), and nothing else: create a channel's
   * secret under the stage's prefix, put a new token into it (`channel update`), delete it with its organisation
   * (`org delete`, at once, without a recovery window). No function may delete a secret; an operator assumes this role
   * rather than holding Secrets Manager rights over the account, and start:cdk's `wpcrm` acts as it (IAM enforced).
   */
  private channelTokensRole(stage: Stage): iam.Role {
    const role = new iam.Role(this, 'ChannelTokensRole', {
      assumedBy: new iam.AccountRootPrincipal(),
      description: `Operators: the channels' token secrets under wp-crm/${stage}/channels/ (create, put, delete)`,
    });
    const prefix = channelSecretsPrefix(stage);
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['secretsmanager:CreateSecret', 'secretsmanager:PutSecretValue', 'secretsmanager:DeleteSecret'],
        resources: [`arn:${this.partition}:secretsmanager:${this.region}:${this.account}:secret:${prefix}*`],
      }),
    );
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${prefix}*]`,
      reason: 'Channel token secrets are created per channel at run time under this prefix.',
    });
    return role;
  }
}

/**
 * What the routes and the rows say about the functions: which answer HTTP, verify tokens or page lists, and which one
 * is the fallback. Every route's function has a row, and every row is deployed by a route, a queue, a schedule or as
 * the fallback: a row that serves nothing fails the synth.
 */
function deploymentOf(rows: Readonly<Record<string, FunctionRow>>, routes: readonly RouteDef[]): Deployment {
  for (const route of routes) functionRow(route.fn, rows);
  const fallbacks = Object.keys(rows).filter((fn) => rows[fn]!.fallback);
  if (fallbacks.length !== 1) throw new Error(`FUNCTIONS needs exactly one fallback row, not ${fallbacks.length}`);
  const routed = new Set(routes.map((route) => route.fn));
  const idle = Object.entries(rows).filter(
    ([fn, row]) => !routed.has(fn) && !row.queue && row.everyMinutes === undefined && !row.fallback,
  );
  if (idle.length > 0) throw new Error(`rows of FUNCTIONS that serve nothing: ${idle.map(([fn]) => fn).join(', ')}`);
  return {
    servesHttp: new Set([...routed, fallbacks[0]!]),
    verifiesTokens: new Set(routes.filter((route) => route.auth !== 'public').map((route) => route.fn)),
    pagesLists: new Set(routes.filter(takesCursor).map((route) => route.fn)),
    fallback: fallbacks[0]!,
  };
}
