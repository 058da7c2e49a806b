import { Duration, RemovalPolicy, Stack, Tags, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Architecture, Function as LambdaFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IStringParameter } from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { LEADING_KEY_PATTERNS, PUBLIC_KEYS_PARTITION } from '#shared/adapters/dynamodb/keys';
import type { TABLE_INDEXES } from '#shared/adapters/dynamodb/table';
import { assumeTenantStatements, TENANT_CALLER_TAG } from '../tenant-access.ts';
import { type BundledFile, functionCode } from './function-bundle.ts';
import { ALARM_PERIOD, operatorAlarm } from './operator-alarm.ts';
import type { TenantAccessRole } from './tenant-access-role.ts';

export { REPO_ROOT } from './function-bundle.ts';

export type TableAccess = 'read' | 'readWrite';
export type IndexName = (typeof TABLE_INDEXES)[number]['indexName'];
/**
 * What a function does with its organisations' report files (all through the tenant-access role): read them (to sign
 * download URLs), write them, or `expire` them (the report sweeper at expiresAt, CONTRACT §17).
 */
export type BucketAccess = 'read' | 'write' | 'expire';

/**
 * Partitions of the table that belong to no organisation, reached with the function's own role (CONTRACT §25): the
 * links from Meta's ids, the sweepers' due lists. Patterns are `dynamodb:LeadingKeys` StringLike patterns
 * (shared/adapters/dynamodb/keys.ts builds the keys).
 */
export interface GlobalPartitions {
  /** Item partitions, each set with what the function does with its items (TableAccess's actions). */
  items?: readonly { keys: readonly string[]; access: TableAccess }[];
  /** Index partitions it Queries (the index's partition key values). */
  queries?: readonly { index: IndexName; partitions: readonly string[] }[];
}

// A function role's own table actions (an organisation's items are reached through the tenant-access role, whose
// actions infra/aws/tenant-access.ts holds). Exact actions instead of CDK's grantReadData/grantWriteData: no Scan, no
// streams, no ConditionCheckItem, no batch writes but where a function declares them. Item actions name the table
// only; Query reaches the indexes a function declares, BatchGetItem only where a function checks many keys at once.
const TABLE_ACTIONS: Record<TableAccess, string[]> = {
  read: ['dynamodb:GetItem', 'dynamodb:Query'],
  readWrite: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
};

/**
 * A log line that asks for an operator: the function logs `{"alert": <alert>, …}` and a metric filter on its log group
 * counts them for an alarm (no metrics library in the bundle).
 */
export interface LogAlert {
  alert: string;
  metricName: string;
  description: string;
}

export interface AppFunctionProps {
  /** The folder under `functions/` whose `handler.ts` exports `handler`. */
  fn: string;
  /**
   * Function timeout. API functions must stay below API Gateway's 30 s integration limit.
   * @default Duration.seconds(10)
   */
  timeout?: Duration;
  /**
   * Memory in MB; CPU scales with it (the token function hashes secrets with scrypt).
   * @default 512
   */
  memorySize?: number;
  /** Extra environment variables; the bind helpers add the wiring ones. */
  environment?: Record<string, string>;
  /** @default - none */
  description?: string;
  /**
   * Files copied into the asset after bundling, for what esbuild cannot see (a file read instead of an import).
   * @default - none
   */
  files?: readonly BundledFile[];
  /**
   * Concurrency reserved for this function alone (its floor and its ceiling).
   * @default - none: the function shares the account's unreserved pool
   */
  reservedConcurrency?: number;
  /**
   * What happens to the log group when the stack deletes the function.
   * @default RemovalPolicy.RETAIN
   */
  logRemovalPolicy?: RemovalPolicy;
  /**
   * The operators' topic: the function then alarms on its errors, its throttles and each of `alerts`, beside it.
   * @default - no alarms
   */
  alarmTopic?: ITopic;
  /** Log lines that ask for an operator, each a metric filter on the log group and an alarm (with `alarmTopic`). */
  alerts?: readonly LogAlert[];
}

/**
 * A Lambda function with the project's defaults (ARCHITECTURE, TOOLCHAIN): Node.js 22 on arm64, an ESM bundle with
 * the SDK bundled and module-first mainFields, source maps, X-Ray tracing, Powertools settings, and its own log
 * group with a retention. Its role starts empty except for writing to that log group; the `bind*` helpers add
 * each environment variable together with the least-privilege grant it needs.
 */
export class AppFunction extends Construct {
  readonly fn: LambdaFunction;
  readonly role: iam.Role;
  readonly logGroup: LogGroup;
  /** The folder under `functions/`. */
  readonly name: string;

  constructor(scope: Construct, id: string, props: AppFunctionProps) {
    super(scope, id);
    this.name = props.fn;
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.RETAIN,
    });
    // An own role instead of AWSLambdaBasicExecutionRole, whose logs actions apply to every log group.
    this.role = new iam.Role(this, 'Role', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    this.logGroup.grantWrite(this.role);

    this.fn = new LambdaFunction(this, 'Function', {
      code: functionCode(props.fn, props.files),
      handler: 'index.handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      reservedConcurrentExecutions: props.reservedConcurrency,
      tracing: Tracing.ACTIVE,
      role: this.role,
      logGroup: this.logGroup,
      description: props.description,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: 'wp-crm',
        POWERTOOLS_LOG_LEVEL: 'INFO',
        ...props.environment,
      },
    });

    if (props.alarmTopic) this.#alarms(props.alarmTopic, props.alerts ?? []);

    Validations.of(this).acknowledge(
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: 'X-Ray PutTraceSegments/PutTelemetryRecords support no resource-level permissions.',
      },
      {
        id: 'AwsSolutions-L1',
        reason: 'Node.js 22 is the runtime the service is built and tested for (ARCHITECTURE).',
      },
    );
  }

  /** Its errors and throttles, and its log alerts: a metric filter each and its alarm, notifying `topic`. */
  #alarms(topic: ITopic, alerts: readonly LogAlert[]): void {
    operatorAlarm(
      this,
      'ErrorsAlarm',
      {
        description: `${this.name} failed invocations (uncaught errors, timeouts, out of memory)`,
        metric: this.fn.metricErrors({ period: ALARM_PERIOD, statistic: 'Sum' }),
        threshold: 1,
      },
      topic,
    );
    operatorAlarm(
      this,
      'ThrottlesAlarm',
      {
        description: `${this.name} invocations throttled by Lambda concurrency`,
        metric: this.fn.metricThrottles({ period: ALARM_PERIOD, statistic: 'Sum' }),
        threshold: 1,
      },
      topic,
    );
    for (const spec of alerts) {
      const filter = this.logGroup.addMetricFilter(`${spec.metricName}Filter`, {
        filterPattern: FilterPattern.stringValue('$.alert', '=', spec.alert),
        // The service stack's name, not the nested stack's: the namespace operators see is the same for every alert.
        metricNamespace: `wp-crm/${rootStack(this).stackName}`,
        metricName: spec.metricName,
        metricValue: '1',
      });
      const metric = filter.metric({ period: ALARM_PERIOD, statistic: 'Sum' });
      operatorAlarm(this, `${spec.metricName}Alarm`, { description: spec.description, metric, threshold: 1 }, topic);
    }
  }

  addEnvironment(name: string, value: string): this {
    this.fn.addEnvironment(name, value);
    return this;
  }

  /**
   * `TABLE_NAME`, plus the table's actions for `access` (BatchGetItem with `batchGets`, BatchWriteItem with
   * `batchWrites`) and Query on the `indexes` the function reads, on the partitions whose key matches one of the
   * `leadingKeys` patterns only (`dynamodb:LeadingKeys`, StringLike). Never the whole table: without `access` it grants
   * nothing (a function acting for organisations reaches their items with their credentials), and `access` without
   * `leadingKeys` fails the synth.
   */
  bindTable(
    table: ITableV2,
    access?: TableAccess,
    options: {
      leadingKeys?: readonly string[];
      indexes?: readonly IndexName[];
      batchGets?: boolean;
      batchWrites?: boolean;
    } = {},
  ): this {
    this.addEnvironment('TABLE_NAME', table.tableName);
    if (!access) return this;
    if (!options.leadingKeys?.length) {
      throw new Error(
        `${this.name}: a table grant names its partitions (leadingKeys); an organisation's are the tenant role's`,
      );
    }
    const conditions = { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...options.leadingKeys] } };
    const actions = [
      ...TABLE_ACTIONS[access],
      ...(options.batchGets ? ['dynamodb:BatchGetItem'] : []),
      ...(options.batchWrites && access === 'readWrite' ? ['dynamodb:BatchWriteItem'] : []),
    ];
    this.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions, resources: [table.tableArn], conditions }));
    if (options.indexes?.length) {
      this.role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: ['dynamodb:Query'],
          resources: options.indexes.map((index) => `${table.tableArn}/index/${index}`),
          conditions,
        }),
      );
    }
    return this;
  }

  /**
   * Counting in (and taking back from) the organisation's request-quota windows: UpdateItem on those partitions
   * only (`dynamodb:LeadingKeys`), for a function whose table access does not already cover them.
   */
  bindRequestQuota(table: ITableV2, leadingKeys: readonly string[]): this {
    this.addEnvironment('TABLE_NAME', table.tableName);
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:UpdateItem'],
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...leadingKeys] } },
      }),
    );
    return this;
  }

  /**
   * `REPORTS_BUCKET`, and no grant: a function reaches report files with its organisation's credentials only (the
   * tenant-access role, `org/<orgId>/` of the bucket).
   */
  bindReportsBucket(bucket: IBucket): this {
    return this.addEnvironment('REPORTS_BUCKET', bucket.bucketName);
  }

  /** `EVENT_BUS_NAME`, plus PutEvents on that bus only. */
  bindEventBus(bus: IEventBus): this {
    this.addEnvironment('EVENT_BUS_NAME', bus.eventBusName);
    bus.grantPutEventsTo(this.role);
    return this;
  }

  /** `JWT_SIGNING_SECRET_ID` (the private key set), readable, and writable for the key manager. */
  bindSigningKeys(secret: ISecret, access: 'read' | 'readWrite' = 'read'): this {
    this.addEnvironment('JWT_SIGNING_SECRET_ID', secret.secretArn);
    this.readSecret(secret);
    if (access === 'readWrite') secret.grantWrite(this.role);
    return this;
  }

  /** `JWT_PUBLIC_KEYS_PARAMETER` (the public JWKS for operators and outside verifiers), writable: the key manager. */
  bindPublicKeysParameter(parameter: IStringParameter): this {
    this.addEnvironment('JWT_PUBLIC_KEYS_PARAMETER', parameter.parameterName);
    parameter.grantWrite(this.role);
    return this;
  }

  /**
   * The public JWKS item of the table (`TABLE_NAME`): readable by the token verifiers, writable by the key manager,
   * and nothing else of the table through this grant (`dynamodb:LeadingKeys`).
   */
  bindPublicKeysItem(table: ITableV2, access: 'read' | 'write' = 'read'): this {
    this.addEnvironment('TABLE_NAME', table.tableName);
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: access === 'write' ? ['dynamodb:PutItem', 'dynamodb:DeleteItem'] : ['dynamodb:GetItem'],
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [PUBLIC_KEYS_PARTITION] } },
      }),
    );
    return this;
  }

  /**
   * GetItem on the items a token check reads besides the JWKS: the token's credential, its organisation's status copy
   * (CONTRACT §17) and a console session (§24), and nothing else of the table through this grant
   * (`dynamodb:LeadingKeys`).
   */
  bindAccessStatus(table: ITableV2): this {
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:GetItem'],
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...LEADING_KEY_PATTERNS.accessStatus] } },
      }),
    );
    return this;
  }

  /**
   * `WEBHOOK_SECRETS_KMS_KEY_ID`, and no grant: webhook signing secrets are sealed and opened with the organisation's
   * credentials only (the tenant-access role, under an encryption context that names the organisation).
   */
  bindWebhookSecretsKey(key: IKey): this {
    return this.addEnvironment('WEBHOOK_SECRETS_KMS_KEY_ID', key.keyArn);
  }

  /**
   * Acting for organisations (CONTRACT §25): `TENANT_ACCESS_ROLE_ARN`, `sts:AssumeRole` and `sts:TagSession` (the tag
   * `org` alone) on the stage's tenant-access role, and the caller tag its trust policy accepts.
   */
  bindTenantAccess(tenant: TenantAccessRole): this {
    Tags.of(this.role).add(TENANT_CALLER_TAG, tenant.stage);
    for (const statement of assumeTenantStatements(tenant.role.roleArn)) {
      this.role.addToPrincipalPolicy(iam.PolicyStatement.fromJson(statement));
    }
    return this.addEnvironment('TENANT_ACCESS_ROLE_ARN', tenant.role.roleArn);
  }

  /**
   * The partitions of the table that belong to no organisation, with the function's own role: each item set's actions
   * and each index's Query, under `dynamodb:LeadingKeys` of those partitions only.
   */
  bindGlobalPartitions(table: ITableV2, global: GlobalPartitions): this {
    const only = (patterns: readonly string[]) => ({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...patterns] },
    });
    for (const { keys, access } of global.items ?? []) {
      this.role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: TABLE_ACTIONS[access],
          resources: [table.tableArn],
          conditions: only(keys),
        }),
      );
    }
    // A global index partition gives the keys only (CONTRACT §25): its items are read with their organisation's
    // credentials. A Query without a projection of the keys alone is refused (dynamodb:Select, dynamodb:Attributes).
    for (const { index, partitions } of global.queries ?? []) {
      this.role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: ['dynamodb:Query'],
          resources: [`${table.tableArn}/index/${index}`],
          conditions: {
            'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...partitions] },
            'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['PK', 'SK', `${index}PK`, `${index}SK`] },
            StringEquals: { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' },
          },
        }),
      );
    }
    return this;
  }

  /** `CURSOR_KEY_SECRET_ID`: the HMAC key of list cursors, readable. */
  bindCursorKey(secret: ISecret): this {
    this.addEnvironment('CURSOR_KEY_SECRET_ID', secret.secretArn);
    this.readSecret(secret);
    return this;
  }

  /** `WHATSAPP_SECRETS_ID`: Meta's app secret and verify token, read once per cold start. */
  bindWhatsAppSecrets(secret: ISecret): this {
    this.addEnvironment('WHATSAPP_SECRETS_ID', secret.secretArn);
    this.readSecret(secret);
    return this;
  }

  /** GetSecretValue alone: grantRead's DescribeSecret is never called (the secrets are read by ARN). */
  private readSecret(secret: ISecret): void {
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secret.secretArn] }),
    );
  }
}

/** The stack a nested stack belongs to, or the stack itself. */
function rootStack(scope: Construct): Stack {
  let stack = Stack.of(scope);
  while (stack.nestedStackParent) stack = stack.nestedStackParent;
  return stack;
}
