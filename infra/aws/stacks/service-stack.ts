import { CfnOutput, Duration, NestedStack, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { LEADING_KEY_PATTERNS } from '#shared/adapters/dynamodb/keys';
import { BUS_RULES, QUEUES, SCHEDULES } from '#shared/events/catalog';
import { ROUTES } from '#shared/routes/index';
import { takesCursor } from '#shared/routes/route';
import type { AlarmEndpoints } from '../alarm-endpoints.ts';
import { CONCERNS, type Concern, concernOf } from '../concerns.ts';
import { AppFunction } from '../constructs/app-function.ts';
import { DataStore } from '../constructs/data-store.ts';
import { EventRules } from '../constructs/event-rules.ts';
import { JwtKeys } from '../constructs/jwt-keys.ts';
import { denyGrantsButForAwsResources } from '../constructs/kms.ts';
import { QueueWorker } from '../constructs/queue-worker.ts';
import { ServiceAlarms } from '../constructs/service-alarms.ts';
import { ServiceApi, type Throttle } from '../constructs/service-api.ts';
import { ServiceDashboard } from '../constructs/service-dashboard.ts';
import type { EdgeConfig } from '../edge.ts';
import { FUNCTION_ACCESS } from '../function-access.ts';
import { functionFiles } from '../function-files.ts';
import { pascalCase } from '../naming.ts';
import { removalPolicyFor, type Stage } from '../stage.ts';

export interface ServiceStackProps extends StackProps {
  stage: Stage;
  /** The `iss` of issued tokens (JWT_ISSUER). */
  jwtIssuer: string;
  /** The `aud` of issued tokens (JWT_AUDIENCE). */
  jwtAudience: string;
  /**
   * Webhook subscriptions per organisation (WEBHOOK_SUBSCRIPTION_LIMIT).
   * @default 20
   */
  webhookSubscriptionLimit?: number;
  /**
   * Report schedules per organisation (REPORT_SCHEDULE_LIMIT).
   * @default 20
   */
  reportScheduleLimit?: number;
  /**
   * Messages per organisation and window, `<messages>/<seconds>` (MESSAGE_SEND_RATE_LIMIT).
   * @default '600/60'
   */
  messageSendRateLimit?: string;
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
   * How long reports are kept (REPORT_RETENTION_SECONDS): the report functions' setting and the bucket's rule.
   * @default 604800
   */
  reportRetentionSeconds?: number;
  /**
   * The operator's endpoints that the alarm topic notifies (`-c alarmEmail=… -c alarmHttpsEndpoint=…`).
   * @default - none: the operator subscribes to AlarmTopicArn by hand
   */
  alarmEndpoints?: AlarmEndpoints;
}

const FALLBACK_FN = 'route-not-found';

/**
 * The service: one stack for operators (its outputs — TableName for `wpcrm --stack`, ApiUrl, … — live in one place
 * and no cross-stack export pins the data), made of nested stacks by concern (infra/aws/concerns.ts) so that no
 * template nears CloudFormation's limits (CONTRACT §22, docs/architecture.md). The service stack keeps the
 * state (table, bucket, bus, keys, secrets), the HTTP API with its stage, the alarm topic and the dashboard; each
 * concern's stack keeps its functions, routes, queues and rules. Stateful resources are retained outside dev.
 */
export class ServiceStack extends Stack {
  readonly data: DataStore;
  readonly jwtKeys: JwtKeys;
  readonly whatsAppSecrets: Secret;
  readonly cursorKey: Secret;
  readonly webhookSecretsKey: Key;
  readonly alarmTopic: Topic;
  readonly alarms: ServiceAlarms;
  readonly dashboard: ServiceDashboard;
  readonly api: ServiceApi;
  readonly workers: ReadonlyMap<string, QueueWorker>;
  /** Every function running service code, by its `functions/` folder. */
  readonly functions: ReadonlyMap<string, AppFunction>;
  /** The nested stack of each concern. */
  readonly concerns: ReadonlyMap<Concern, NestedStack>;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const removalPolicy = removalPolicyFor(props.stage);
    const reportRetentionSeconds = props.reportRetentionSeconds ?? 604_800;
    this.data = new DataStore(this, 'Data', { removalPolicy, reportRetentionSeconds });
    this.jwtKeys = new JwtKeys(this, 'JwtKeys', {
      removalPolicy,
      parameterName: `/wp-crm/${props.stage}/jwt/public-keys`,
      table: this.data.table,
    });
    // Customers' webhook signing secrets are stored encrypted under this key (CONTRACT §7).
    this.webhookSecretsKey = new Key(this, 'WebhookSecretsKey', {
      description: 'Encrypts webhook signing secrets at rest',
      enableKeyRotation: true,
      removalPolicy,
    });
    denyGrantsButForAwsResources(this.webhookSecretsKey);
    // Meta's webhook verify token is generated; Meta's app secret is not shipped at all (no placeholder): the operator
    // adds it after the first deploy (docs/deployment.md), and until then the webhook answers 503 (CONTRACT §13).
    this.whatsAppSecrets = new Secret(this, 'WhatsAppSecrets', {
      description: 'WhatsApp app secret and webhook verify token: {"appSecret":"…","verifyToken":"…"}',
      removalPolicy,
      generateSecretString: {
        secretStringTemplate: JSON.stringify({}),
        generateStringKey: 'verifyToken',
        passwordLength: 48,
        excludePunctuation: true,
      },
    });
    Validations.of(this.whatsAppSecrets).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: "Meta's app secret is rotated in Meta's console; the operator updates this secret then.",
    });

    // Authenticates list cursors (CONTRACT §13) and event iterators (§20). Generated once; a new value (put-secret-value)
    // ends the list cursors then open, while the replaced value (AWSPREVIOUS) opens iterators for the events' retention.
    this.cursorKey = new Secret(this, 'CursorKey', {
      description: 'HMAC key of the API list cursors and event iterators (generated; no operator action)',
      removalPolicy,
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
    });
    Validations.of(this.cursorKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'A cursor lives for one listing, an iterator for the events retention (the replaced value still opens it); ' +
        'putting a new value by hand is the whole rotation (docs/operations.md).',
    });

    const concerns = new Map(
      (Object.entries(CONCERNS) as [Concern, string][]).map(([concern, description]) => [
        concern,
        new NestedStack(this, concern, { description: `wp-crm ${props.stage}: ${description}` }),
      ]),
    );
    this.concerns = concerns;
    const scopeOf = (fn: string) => concerns.get(concernOf(fn))!;
    const workers = new Map(
      QUEUES.map((def) => [
        def.name,
        new QueueWorker(scopeOf(def.consumer), pascalCase(def.name), { def, logRemovalPolicy: removalPolicy }),
      ]),
    );
    const functions = new Map([...workers.values()].map((worker) => [worker.def.consumer, worker.consumer]));
    const functionFor = (fn: string, timeout?: Duration) => {
      let appFunction = functions.get(fn);
      if (!appFunction) {
        appFunction = new AppFunction(scopeOf(fn), pascalCase(fn), {
          fn,
          timeout,
          files: functionFiles(fn),
          logRemovalPolicy: removalPolicy,
        });
        functions.set(fn, appFunction);
      }
      return appFunction;
    };
    for (const route of ROUTES) functionFor(route.fn);
    functionFor(FALLBACK_FN);
    // Sweepers page through the table in the background; API Gateway's 30 s limit does not apply to them.
    for (const schedule of SCHEDULES) functionFor(schedule.fn, Duration.minutes(1));

    const servesHttp = new Set([...ROUTES.map((route) => route.fn), FALLBACK_FN]);
    const verifiesTokens = new Set(ROUTES.filter((route) => route.auth !== 'public').map((route) => route.fn));
    const pagesLists = new Set(ROUTES.filter(takesCursor).map((route) => route.fn));
    for (const [fn, appFunction] of functions) {
      const access = FUNCTION_ACCESS[fn] ?? {};
      appFunction
        .addEnvironment('JWT_ISSUER', props.jwtIssuer)
        .addEnvironment('JWT_AUDIENCE', props.jwtAudience)
        .bindTable(this.data.table, access.table, {
          leadingKeys: access.tableKeys,
          indexes: access.indexes,
          batchGets: access.batchGets,
          batchWrites: access.batchWrites,
        });
      if (verifiesTokens.has(fn) || access.servesPublicKeys) appFunction.bindPublicKeysItem(this.data.table);
      if (verifiesTokens.has(fn) && (access.table !== 'readWrite' || access.tableKeys)) {
        appFunction.bindRequestQuota(this.data.table, LEADING_KEY_PATTERNS.requestQuota);
      }
      if (verifiesTokens.has(fn) || access.checksAccess) appFunction.bindAccessStatus(this.data.table);
      if (access.signsTokens) appFunction.bindSigningKeys(this.jwtKeys.secret);
      if (pagesLists.has(fn)) appFunction.bindCursorKey(this.cursorKey);
      // Behind the edge the caller's origin is the edge's, and its address the one CloudFront saw (shared/http/edge.ts).
      if (props.edge && servesHttp.has(fn)) {
        appFunction.addEnvironment('WPCRM_EDGE_ORIGIN', `https://${props.edge.domainName}`);
      }
      if (fn === 'send-message' || fn === 'invite-participants') {
        appFunction.addEnvironment('MESSAGE_SEND_RATE_LIMIT', props.messageSendRateLimit ?? '600/60');
      }
      if (fn === 'create-webhook') {
        appFunction.addEnvironment('WEBHOOK_SUBSCRIPTION_LIMIT', String(props.webhookSubscriptionLimit ?? 20));
      }
      if (fn === 'create-report-schedule') {
        appFunction.addEnvironment('REPORT_SCHEDULE_LIMIT', String(props.reportScheduleLimit ?? 20));
      }
      if (access.reports) {
        appFunction.bindReportsBucket(this.data.reports, access.reports);
        appFunction.addEnvironment('REPORT_RETENTION_SECONDS', String(reportRetentionSeconds));
      }
      if (access.publishesEvents) appFunction.bindEventBus(this.data.bus);
      if (access.callsNetwork) appFunction.bindChannelTokens(`wp-crm/${props.stage}/channels/`);
      if (access.verifiesNetworkWebhooks) appFunction.bindWhatsAppSecrets(this.whatsAppSecrets);
      if (access.webhookSecrets) appFunction.bindWebhookSecretsKey(this.webhookSecretsKey, access.webhookSecrets);
      for (const queue of access.sendsTo ?? []) {
        const worker = workers.get(queue);
        if (!worker) throw new Error(`${fn} sends to ${queue}, which is not in QUEUES`);
        worker.bindProducer(appFunction);
      }
    }
    this.workers = workers;
    this.functions = functions;

    const lambdaOf = (fn: string) => {
      const appFunction = functions.get(fn);
      if (!appFunction) throw new Error(`no function ${fn}: it is not in ROUTES, QUEUES or SCHEDULES`);
      return appFunction.fn;
    };
    this.api = new ServiceApi(this, 'Http', {
      routes: ROUTES,
      functionFor: lambdaOf,
      scopeFor: (route) => scopeOf(route.fn),
      accountThrottle: props.apiAccountThrottle,
      fallback: lambdaOf(FALLBACK_FN),
      logRemovalPolicy: removalPolicy,
      edge: props.edge,
    });
    // Each concern's rules and schedules, with a dead-letter queue of its own: a queue policy stays a few statements
    // long however many concerns the service grows (SQS allows 10 conditions per policy).
    for (const [concern, scope] of concerns) {
      const rules = BUS_RULES.filter((rule) => {
        const worker = workers.get(rule.targetQueue);
        if (!worker) throw new Error(`bus rule ${rule.id}: no queue named ${rule.targetQueue}`);
        return concernOf(worker.def.consumer) === concern;
      });
      const schedules = SCHEDULES.filter((schedule) => concernOf(schedule.fn) === concern);
      new EventRules(scope, 'Events', {
        bus: this.data.bus,
        rules,
        queues: new Map([...workers].map(([name, worker]) => [name, worker.queue])),
        schedules,
        functionFor: lambdaOf,
      });
    }

    // Every alarm notifies one topic that operators subscribe to (docs/operations.md).
    this.alarms = new ServiceAlarms(this, 'Alarms', {
      functions: new Set([...functions.values(), this.jwtKeys.manager]),
      workers: workers.values(),
      api: this.api.api,
      table: this.data.table,
      originCertificateArn: props.edge?.originCertificateArn,
      originOwnershipCertificateArn: props.edge?.originOwnershipCertificateArn,
      endpoints: props.alarmEndpoints,
      removalPolicy,
    });
    this.alarmTopic = this.alarms.topic;
    this.dashboard = new ServiceDashboard(this, 'Operations', {
      functions,
      workers: workers.values(),
      api: this.api.api,
      table: this.data.table,
    });
    for (const construct of this.node.findAll()) if (construct instanceof Alarm) this.alarms.notify(construct);

    const channelTokens = this.channelTokensRole(props.stage);

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
    const prefix = `wp-crm/${stage}/channels/`;
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
