import type { App } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALARM_CONTEXT, parseAlarmEndpoints } from '#infra/aws/alarm-endpoints';
import { buildApp } from '#infra/aws/build-app';
import { actsForOrganisations, FUNCTIONS, QUEUES, REPORT_WORKER_NODE_OPTIONS, SCHEDULES } from '#infra/aws/functions';
import type { ServiceStack } from '#infra/aws/stacks/service-stack';
import { parseStage } from '#infra/aws/stage';
import { ORG } from '#infra/aws/tenant-access';
import { authorize, type PolicyDocument } from '#infra/cdk-local/iam/policy';
import { TABLE_INDEXES, TTL_ATTRIBUTE } from '#shared/adapters/dynamodb/table';
import { GROUP_REQUEST_ON_HOLD } from '#shared/domain/groups/process-group-request';
import { NETWORK_NOTIFICATION_UNREADABLE } from '#shared/domain/network/notification';
import { DEFAULT_DRAIN_SECONDS } from '#shared/domain/orgs/erase-org';
import { ROUTES } from '#shared/routes/index';
import { routeKey, takesCursor } from '#shared/routes/route';
import {
  ALARM_TEST_CONTEXT,
  appFunctions,
  asArray,
  EDGE_TEST_CONTEXT,
  expectSafeEventTargets,
  expectSafeQueueSources,
  expectSafeQueues,
  expectStandardFunctions,
  flatTemplate,
  type Json,
  logicalId,
  refId,
  resources,
  type Statement,
  statements,
  testApp,
} from './support.ts';

const TABLE_ARN = 'arn:aws:dynamodb:eu-west-1:000000000000:table/wpcrm';

/** A statement with the table's ARN in place of its Fn::GetAtt (and Fn::Join done), as the IAM model evaluates it. */
function resolveTable(statement: Statement): Statement {
  const resolve = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(resolve);
    if (value === null || typeof value !== 'object') return value;
    const object = value as Record<string, unknown>;
    if ('Fn::GetAtt' in object) return TABLE_ARN;
    if ('Fn::Join' in object) {
      const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
      return parts.map(resolve).join(separator);
    }
    return Object.fromEntries(Object.entries(object).map(([key, inner]) => [key, resolve(inner)]));
  };
  return resolve(statement) as Statement;
}

describe('ServiceStack (dev)', () => {
  let app: App;
  let stack: ServiceStack;
  let template: Template;
  const fnOf = (name: string) => stack.functions.get(name)!;
  const envOf = (name: string): Record<string, unknown> =>
    template.toJSON().Resources[logicalId(fnOf(name).fn)].Properties.Environment.Variables;

  beforeAll(() => {
    app = testApp();
    stack = buildApp(app, 'dev');
    template = flatTemplate(stack);
  });

  it('passes the cdk-nag AwsSolutions checks, every remaining finding acknowledged', () => {
    expect(() => app.synth()).not.toThrow();
  });

  it('runs every service function on Node.js 22, arm64, traced, with a log retention', () => {
    expectStandardFunctions(template, appFunctions(stack));
  });

  it('runs no other Lambda than the CDK custom-resource handlers', () => {
    const ours = new Set(appFunctions(stack).map((fn) => logicalId(fn.fn)));

    const others = resources(template, 'AWS::Lambda::Function').filter(([id]) => !ours.has(id));

    for (const [id, fn] of others) {
      const cdkOwned =
        id.startsWith('CustomS3AutoDeleteObjectsCustomResourceProvider') ||
        fn.Properties.Environment?.Variables?.USER_ON_EVENT_FUNCTION_ARN !== undefined;
      expect(cdkOwned, id).toBe(true);
    }
  });

  it('keeps API functions below the 30 s API Gateway integration timeout (K-5)', () => {
    const functions = template.toJSON().Resources;

    for (const route of ROUTES) {
      expect(functions[logicalId(fnOf(route.fn).fn)].Properties.Timeout, route.fn).toBeLessThan(30);
    }
  });

  it('deploys exactly the functions of the table, each from its row', () => {
    expect([...stack.functions.keys()].sort()).toEqual(Object.keys(FUNCTIONS).sort());
  });

  it('creates the table with on-demand billing, PITR, TTL and both GSIs', () => {
    const [[, table]] = resources(template, 'AWS::DynamoDB::GlobalTable') as [[string, Json]];

    expect(table.Properties.BillingMode).toBe('PAY_PER_REQUEST');
    expect(table.Properties.TimeToLiveSpecification).toEqual({ AttributeName: TTL_ATTRIBUTE, Enabled: true });
    expect(table.Properties.Replicas[0].PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    expect(table.Properties.GlobalSecondaryIndexes.map((index: Json) => [index.IndexName, index.KeySchema])).toEqual(
      TABLE_INDEXES.map((index) => [
        index.indexName,
        [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
      ]),
    );
  });

  it('routes every contract route to its function, and everything else to route-not-found', () => {
    const integrations = template.findResources('AWS::ApiGatewayV2::Integration');
    const targetOf = (route: Json) => {
      const integrationId = refId(route.Properties.Target['Fn::Join'][1][1]);
      return refId(integrations[integrationId]!.Properties.IntegrationUri);
    };

    const routes = Object.fromEntries(
      resources(template, 'AWS::ApiGatewayV2::Route').map(([, route]) => [route.Properties.RouteKey, targetOf(route)]),
    );

    expect(routes).toEqual({
      ...Object.fromEntries(ROUTES.map((route) => [routeKey(route), logicalId(fnOf(route.fn).fn)])),
      $default: logicalId(fnOf('route-not-found').fn),
    });
  });

  it('throttles the stage and writes access logs (K-5)', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 },
      AccessLogSettings: { DestinationArn: { 'Fn::GetAtt': [Match.anyValue(), 'Arn'] } },
    });
  });

  it('writes one JSON object per request to the access log: request, route, status, latencies, errors, caller', () => {
    const [, stage] = resources(template, 'AWS::ApiGatewayV2::Stage')[0]!;
    const format = stage.Properties.AccessLogSettings.Format as string;
    // A line as API Gateway writes it: each variable replaced by its value; `error.messageString` is the message
    // already quoted (and a message may hold a quote), every other value is bare text.
    const line = format.replace(/\$context\.[A-Za-z]+(?:\.[A-Za-z]+)*/g, (variable) =>
      variable === '$context.error.messageString' ? JSON.stringify('say "no"') : variable,
    );
    const fields = JSON.parse(line) as Record<string, unknown>;
    // API Gateway's variables for HTTP API access logs, written out here rather than imported from the code:
    // https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-logging-variables.html
    const required = [
      '$context.requestId',
      '$context.routeKey',
      '$context.status',
      '$context.responseLatency',
      '$context.integrationLatency',
      '$context.integrationErrorMessage',
      '$context.identity.sourceIp',
      '$context.httpMethod',
      '$context.path',
      '$context.protocol',
      '$context.identity.userAgent',
      '$context.responseLength',
    ];

    expect(format).not.toMatch(/\n/);
    expect(Object.values(fields)).toEqual(expect.arrayContaining(required));
    expect(fields.errorMessage).toBe('say "no"');
    for (const [name, value] of Object.entries(fields)) {
      if (name !== 'errorMessage') expect(value, name).toMatch(/^\$context\.[A-Za-z]+(\.[A-Za-z]+)*$/);
    }
    expect(new Set(Object.values(fields)).size).toBe(Object.keys(fields).length);
  });

  it('throttles every route by its own limits: token and $default below the stage default, the network webhook sized for Meta (K-5, CONTRACT §21)', () => {
    const stages = template.findResources('AWS::ApiGatewayV2::Stage');
    const [stageId, stageResource] = Object.entries(stages)[0]!;
    const settings = stageResource.Properties.RouteSettings as Record<string, Record<string, number>>;
    const routeKeys = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map(
      (route) => route.Properties.RouteKey as string,
    );

    // Every route has its own throttle (CONTRACT §21): junk on one route or on unknown paths uses up that route's.
    expect(Object.keys(settings).sort()).toEqual([...routeKeys].sort());
    const own = Object.fromEntries(
      Object.entries(settings).filter(([, throttle]) => throttle.ThrottlingRateLimit !== 100),
    );
    expect(Object.values(settings).filter((throttle) => throttle.ThrottlingRateLimit === 100)).toEqual(
      Array(routeKeys.length - 4).fill({ ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 }),
    );
    expect(own).toEqual({
      'POST /api/wp-crm/token': { ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 },
      // 60 % of API Gateway's default account quota (10,000/s, burst 5,000): a route's limit above the account's
      // would never be reached (CONTRACT §22).
      'POST /api/wp-crm/network/whatsapp/webhook': { ThrottlingRateLimit: 6000, ThrottlingBurstLimit: 3000 },
      'GET /api/wp-crm/network/whatsapp/webhook': { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 },
      $default: { ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 },
    });
    for (const [key, throttle] of Object.entries(own)) {
      if (key !== 'POST /api/wp-crm/network/whatsapp/webhook') expect(throttle.ThrottlingRateLimit).toBeLessThan(100);
    }
    expect(stageResource.DependsOn?.length ?? 0).toBeGreaterThanOrEqual(routeKeys.length);
    expect(stageId).toBeDefined();
  });

  it('gives every function the table name and the token settings', () => {
    for (const name of stack.functions.keys()) {
      expect(envOf(name), name).toMatchObject({
        TABLE_NAME: expect.anything(),
        JWT_ISSUER: 'https://wp-crm.dev',
        JWT_AUDIENCE: 'wp-crm-api',
      });
    }
  });

  it.each([
    [
      'issue-token',
      ['CLIENT#cli_01ABC', 'LOGINADDR#203.0.113.9'],
      ['ORG#0b0e2bd8-3a41-4b7a-9b43-2f7a8e0c1d55', 'JWKS'],
    ],
    [
      // Its organisations' partitions with their credentials (the tenant-access role); Meta's links with its own.
      'apply-network-notifications',
      ['WAREQ#wamid.grq1', 'WAGROUP#120363025246125486', 'WAMSG#wamid.HBgL', 'EVENT#evt_1'],
      [
        'ORG#0b0e2bd8-3a41-4b7a-9b43-2f7a8e0c1d55',
        'ORG#0b0e2bd8-3a41-4b7a-9b43-2f7a8e0c1d55#CHAT',
        'ORG#0b0e2bd8-3a41-4b7a-9b43-2f7a8e0c1d55#CHAT#cht_01ABC',
        'ORG#0b0e2bd8-3a41-4b7a-9b43-2f7a8e0c1d55#OUTBOX#3',
        'ORGSTATUS#0b0e2bd8-3a41-4b7a-9b43-2f7a8e0c1d55',
        'WAPHONE#100000000000001',
        'CLIENT#cli_01ABC',
        'LOGINADDR#203.0.113.9',
        'IDEM#0b0e2bd8-3a41-4b7a-9b43-2f7a8e0c1d55',
        'JWKS',
      ],
    ],
  ])('limits %s to the partitions it uses (dynamodb:LeadingKeys)', (name, allowed, refused) => {
    const role = logicalId(fnOf(name).role);
    const documents = statements(template)
      .filter(({ roles }) => roles.includes(role))
      .map(({ statement }) => ({ Version: '2012-10-17', Statement: [resolveTable(statement)] }));
    const decide = (partition: string) =>
      authorize({
        principalArn: `arn:aws:iam::000000000000:role/${role}`,
        identityPolicies: documents as PolicyDocument[],
        request: {
          action: 'dynamodb:PutItem',
          resource: TABLE_ARN,
          context: { 'dynamodb:LeadingKeys': [partition] },
        },
      }).decision;

    expect(allowed.map(decide)).toEqual(allowed.map(() => 'allow'));
    expect(refused.map(decide)).toEqual(refused.map(() => 'deny'));
  });

  it('gives the internet-facing network webhook no access to any item of the table, any channel token or the bus (CONTRACT §21)', () => {
    const role = logicalId(fnOf('receive-network-webhook').role);
    const granted = statements(template)
      .filter(({ roles }) => roles.includes(role))
      .flatMap(({ statement }) => asArray(statement.Action));

    expect(granted.filter((action) => /^(dynamodb|events|kms):/.test(action))).toEqual([]);
    // Secrets: Meta's app secret (to verify), never a channel's token (wp-crm/<stage>/channels/*).
    const secrets = statements(template)
      .filter(
        ({ roles, statement }) =>
          roles.includes(role) && asArray(statement.Action).includes('secretsmanager:GetSecretValue'),
      )
      .map(({ statement }) => JSON.stringify(statement.Resource));
    expect(secrets).toEqual([JSON.stringify({ Ref: logicalId(stack.whatsAppSecrets) })]);
    expect(granted).toContain('sqs:SendMessage');
  });

  it('lets every function behind a non-public route count in its organisation quota windows: with its organisation credentials when it acts for organisations, else with its own role', () => {
    const org = '0b0e2bd8-3a41-4b7a-9b43-2f7a8e0c1d55';
    const decide = (name: string, action: string, partition: string) => {
      const role = logicalId(fnOf(name).role);
      const documents = statements(template)
        .filter(({ roles }) => roles.includes(role))
        .map(({ statement }) => ({ Version: '2012-10-17', Statement: [resolveTable(statement)] }));
      return authorize({
        principalArn: `arn:aws:iam::000000000000:role/${role}`,
        identityPolicies: documents as PolicyDocument[],
        request: { action, resource: TABLE_ARN, context: { 'dynamodb:LeadingKeys': [partition] } },
      }).decision;
    };
    const verifying = [...new Set(ROUTES.filter((route) => route.auth !== 'public').map((route) => route.fn))];

    const own = verifying.filter((name) => !actsForOrganisations(FUNCTIONS[name]!.access));

    expect(own).toEqual(['create-console-link']);
    for (const name of verifying) {
      const expected = own.includes(name) ? 'allow' : 'deny';
      expect(decide(name, 'dynamodb:UpdateItem', `RATE#org-requests#${org}`), name).toBe(expected);
      expect(decide(name, 'dynamodb:UpdateItem', `RATE#network-calls#${org}`), name).toBe(expected);
      if (!own.includes(name)) expect(envOf(name).TENANT_ACCESS_ROLE_ARN, name).toBeDefined();
    }
    for (const name of own) {
      expect(decide(name, 'dynamodb:UpdateItem', `RATE#message-send#${org}`), name).toBe('deny');
      expect(decide(name, 'dynamodb:PutItem', `RATE#org-requests#${org}`), name).toBe('deny');
    }
  });

  it("lets the console write its organisations' console partitions only, and read but never write credentials and status copies (CONTRACT §24)", () => {
    const org = '0b0e2bd8-3a41-4b7a-9b43-2f7a8e0c1d55';
    const decide = (name: string, action: string, partition: string) => {
      const role = logicalId(fnOf(name).role);
      const documents = statements(template)
        .filter(({ roles }) => roles.includes(role))
        .map(({ statement }) => ({ Version: '2012-10-17', Statement: [resolveTable(statement)] }));
      return authorize({
        principalArn: `arn:aws:iam::000000000000:role/${role}`,
        identityPolicies: documents as PolicyDocument[],
        request: { action, resource: TABLE_ARN, context: { 'dynamodb:LeadingKeys': [partition] } },
      }).decision;
    };
    const elsewhere = [`ORGSTATUS#${org}`, 'CLIENT#cli_01ABC', `ORG#${org}`, `ORG#${org}#FEED`];

    for (const name of ['create-console-link', 'start-console-session', 'end-console-session']) {
      for (const action of ['dynamodb:PutItem', 'dynamodb:UpdateItem']) {
        expect(decide(name, action, `ORGCONSOLE#${org}`), `${name} ${action}`).toBe('allow');
        for (const partition of elsewhere) expect(decide(name, action, partition), `${name} ${partition}`).toBe('deny');
      }
    }
    for (const name of ['start-console-session', 'refresh-console-session', 'list-channels']) {
      for (const partition of [`ORGCONSOLE#${org}`, `ORGSTATUS#${org}`, 'CLIENT#cli_01ABC']) {
        expect(decide(name, 'dynamodb:GetItem', partition), `${name} ${partition}`).toBe('allow');
      }
    }
    for (const name of ['refresh-console-session', 'list-channels']) {
      expect(decide(name, 'dynamodb:UpdateItem', `ORGCONSOLE#${org}`), name).toBe('deny');
    }
  });

  it("lets only the functions that query an index's global partitions reach it with their own roles, and grants no item action on an index", () => {
    const indexGrants = statements(template).filter(({ statement }) =>
      JSON.stringify(statement.Resource).includes('/index/'),
    );
    const byFunction = new Map([...stack.functions].map(([name, fn]) => [logicalId(fn.role), name] as const));

    const readers = indexGrants.flatMap(({ roles, statement }) =>
      roles.map((role) => `${byFunction.get(role)} ${asArray(statement.Action).join(',')}`),
    );

    expect(readers.sort()).toEqual([
      'apply-network-notifications dynamodb:Query',
      'group-sweeper dynamodb:Query',
      'report-schedule-sweeper dynamodb:Query',
      'report-sweeper dynamodb:Query',
      'report-sweeper dynamodb:Query',
      'webhook-sweeper dynamodb:Query',
    ]);
    // Each names its partitions and lets the Query return the key attributes only (CONTRACT §25: a global partition
    // gives the ids needed to find work; the items are read with their organisations' credentials).
    for (const { statement } of indexGrants) {
      const index = /\/index\/(GSI\d)/.exec(JSON.stringify(statement.Resource))![1]!;
      expect(statement.Condition).toEqual({
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': expect.any(Array) },
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['PK', 'SK', `${index}PK`, `${index}SK`] },
        StringEquals: { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' },
      });
    }
  });

  it('seals and opens webhook secrets only with the tenant-access role, under a context naming its organisation', () => {
    const kms = (statement: Statement) => asArray(statement.Action).some((action) => String(action).startsWith('kms:'));
    const tenant = template.toJSON().Resources[logicalId(stack.tenantAccess.role)].Properties;
    const [sealing] = (tenant.Policies[0].PolicyDocument.Statement as Statement[]).filter(kms);

    expect(statements(template).filter(({ statement }) => kms(statement))).toEqual([]);
    expect(sealing).toMatchObject({
      Action: ['kms:Decrypt', 'kms:Encrypt'],
      Condition: {
        StringEquals: { 'kms:EncryptionContext:orgId': ORG },
        'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['orgId', 'webhookId'] },
      },
    });
    for (const name of ['create-webhook', 'rotate-webhook-secret', 'webhook-dispatcher', 'slow-receiver-dispatcher']) {
      expect(envOf(name).WEBHOOK_SECRETS_KMS_KEY_ID, name).toEqual({
        'Fn::GetAtt': [logicalId(stack.webhookSecretsKey), 'Arn'],
      });
      expect(envOf(name).TENANT_ACCESS_ROLE_ARN, name).toBeDefined();
    }
  });

  it('lets every function behind a non-public route read the public keys item, and no other item through that grant', () => {
    const verifying = new Set(ROUTES.filter((route) => route.auth !== 'public').map((route) => route.fn));
    verifying.add('get-jwks');
    const table = logicalId(stack.data.table);

    for (const name of verifying) {
      const role = logicalId(fnOf(name).role);
      expect(envOf(name).TABLE_NAME, name).toEqual({ Ref: table });
      expect(envOf(name).JWT_PUBLIC_KEYS_PARAMETER, name).toBeUndefined();
      const grants = statements(template).filter(
        ({ roles, statement }) =>
          roles.includes(role) &&
          JSON.stringify(statement.Action) === JSON.stringify('dynamodb:GetItem') &&
          JSON.stringify(statement.Condition) ===
            JSON.stringify({ 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['JWKS'] } }),
      );
      expect(grants, name).toHaveLength(1);
      // The verifiers no longer need the SSM parameter (its client would double their bundles).
      const ssm = statements(template).filter(
        ({ roles, statement }) => roles.includes(role) && JSON.stringify(statement.Action).includes('ssm:'),
      );
      expect(ssm, name).toEqual([]);
    }
  });

  it('lets only the functions that issue tokens (the token route, the console sessions) and jwt-keys read the signing secret', () => {
    const secretId = logicalId(stack.jwtKeys.secret);

    const readers = statements(template)
      .filter(
        ({ statement }) =>
          asArray(statement.Action).some(
            (action) => action === 'secretsmanager:GetSecretValue' || action === 'secretsmanager:*',
          ) && JSON.stringify(statement.Resource).includes(secretId),
      )
      .flatMap(({ roles }) => roles);

    expect(new Set(readers)).toEqual(
      new Set([
        logicalId(fnOf('issue-token').role),
        logicalId(fnOf('start-console-session').role),
        logicalId(fnOf('refresh-console-session').role),
        logicalId(stack.jwtKeys.manager.role),
      ]),
    );
    expect(envOf('issue-token').JWT_SIGNING_SECRET_ID).toEqual({ Ref: secretId });
  });

  it('lets only the listing functions read the generated cursor key', () => {
    const secretId = logicalId(stack.cursorKey);
    const listing = [...new Set(ROUTES.filter(takesCursor).map((route) => route.fn))];

    const readers = statements(template)
      .filter(
        ({ statement }) =>
          asArray(statement.Action).includes('secretsmanager:GetSecretValue') &&
          JSON.stringify(statement.Resource).includes(secretId),
      )
      .flatMap(({ roles }) => roles);

    expect(listing.length).toBeGreaterThanOrEqual(6);
    expect(new Set(readers)).toEqual(new Set(listing.map((name) => logicalId(fnOf(name).role))));
    for (const name of listing) expect(envOf(name).CURSOR_KEY_SECRET_ID, name).toEqual({ Ref: secretId });
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
    });
  });

  it('ships no placeholder app secret: only the verify token is generated, the operator adds the app secret', () => {
    const whatsApp = template.toJSON().Resources[logicalId(stack.whatsAppSecrets)].Properties;

    expect(whatsApp.SecretString).toBeUndefined();
    expect(whatsApp.GenerateSecretString).toMatchObject({
      SecretStringTemplate: '{}',
      GenerateStringKey: 'verifyToken',
    });
    expect(JSON.stringify(template.toJSON())).not.toMatch(/\bset-me\b|\bchange-?me\b|\bplaceholder\b/i);
  });

  it('sets the contract limits on the functions that enforce them', () => {
    expect(envOf('create-webhook').WEBHOOK_SUBSCRIPTION_LIMIT).toBe('20');
    expect(envOf('send-message').MESSAGE_SEND_RATE_LIMIT).toBe('600/60');
    expect(envOf('invite-participants').MESSAGE_SEND_RATE_LIMIT).toBe('600/60');
  });

  it('encrypts webhook secrets with a rotating KMS key that no function role names', () => {
    const keyId = logicalId(stack.webhookSecretsKey);

    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    expect(statements(template).filter(({ statement }) => JSON.stringify(statement.Resource).includes(keyId))).toEqual(
      [],
    );
  });

  it('sends every alarm to the operators topic', () => {
    const topic = logicalId(stack.alarmTopic);
    const alarms = resources(template, 'AWS::CloudWatch::Alarm');

    expect(alarms.length).toBeGreaterThan(0);
    for (const [id, alarm] of alarms) expect(alarm.Properties.AlarmActions, id).toEqual([{ Ref: topic }]);
  });

  it('lets CloudWatch use the alarm topic: a customer-managed key it may use, a topic policy it may publish under', () => {
    const topic = template.toJSON().Resources[logicalId(stack.alarmTopic)].Properties;
    const keyId = refId(topic.KmsMasterKeyId);
    const key = template.toJSON().Resources[keyId];
    const fromAlarms = {
      StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
      ArnLike: { 'aws:SourceArn': Match.anyValue() },
    };

    expect(key.Type).toBe('AWS::KMS::Key');
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.Properties.KeyPolicy.Statement).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      }),
    );
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: logicalId(stack.alarmTopic) }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Condition: fromAlarms,
          }),
        ]),
      },
    });
    expect(template.toJSON().Outputs.AlarmTopicArn).toMatchObject({
      Value: { Ref: logicalId(stack.alarmTopic) },
      Description: expect.any(String),
    });
  });

  it("alarms on every function's errors and throttles, queue backlogs, API 5xx and table throttling", () => {
    const alarms = resources(template, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
    const onMetric = (namespace: string, metric: string) =>
      alarms.filter((alarm) => alarm.Namespace === namespace && alarm.MetricName === metric);
    const functionsOf = (metric: string) =>
      new Set(onMetric('AWS/Lambda', metric).map((alarm) => refId(alarm.Dimensions[0].Value)));
    const every = new Set([...stack.functions.values(), stack.jwtKeys.manager].map((fn) => logicalId(fn.fn)));

    expect(functionsOf('Errors')).toEqual(every);
    expect(functionsOf('Throttles')).toEqual(every);
    expect(onMetric('AWS/SQS', 'ApproximateAgeOfOldestMessage')).toHaveLength(QUEUES.length);
    expect(onMetric('AWS/ApiGateway', '5xx')).toHaveLength(1);
    const throttles = alarms.filter((alarm) =>
      (alarm.Metrics ?? []).some((metric: Json) => /ThrottleEvents$/.test(metric.MetricStat?.Metric.MetricName ?? '')),
    );
    expect(throttles).toHaveLength(1);
    expect(throttles[0].Metrics.filter((metric: Json) => metric.MetricStat)).toHaveLength(
      2 * (1 + TABLE_INDEXES.length),
    );
  });

  it('alarms on a group request put on hold: a metric filter counts the group worker’s alert lines (H-3)', () => {
    const filters = resources(template, 'AWS::Logs::MetricFilter').map(([, filter]) => filter.Properties);
    const worker = fnOf('group-worker');
    const filter = filters.find((candidate) => candidate.LogGroupName.Ref === logicalId(worker.logGroup));
    const alarm = resources(template, 'AWS::CloudWatch::Alarm')
      .map(([, candidate]) => candidate.Properties)
      .find((candidate) => candidate.MetricName === 'GroupRequestsOnHold');

    expect(filter).toMatchObject({
      FilterPattern: `{ $.alert = "${GROUP_REQUEST_ON_HOLD}" }`,
      MetricTransformations: [{ MetricName: 'GroupRequestsOnHold', MetricValue: '1' }],
    });
    expect(alarm).toMatchObject({
      Namespace: filter.MetricTransformations[0].MetricNamespace,
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [{ Ref: logicalId(stack.alarmTopic) }],
    });
  });

  it('alarms on an unreadable Meta notification item: a metric filter counts the webhook receiver’s alert lines (CONTRACT §16)', () => {
    const filters = resources(template, 'AWS::Logs::MetricFilter').map(([, filter]) => filter.Properties);
    const receiver = fnOf('apply-network-notifications');
    const filter = filters.find((candidate) => candidate.LogGroupName.Ref === logicalId(receiver.logGroup));
    const alarm = resources(template, 'AWS::CloudWatch::Alarm')
      .map(([, candidate]) => candidate.Properties)
      .find((candidate) => candidate.MetricName === 'NetworkNotificationsUnreadable');

    expect(filter).toMatchObject({
      FilterPattern: `{ $.alert = "${NETWORK_NOTIFICATION_UNREADABLE}" }`,
      MetricTransformations: [{ MetricName: 'NetworkNotificationsUnreadable', MetricValue: '1' }],
    });
    expect(alarm).toMatchObject({
      Namespace: filter.MetricTransformations[0].MetricNamespace,
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [{ Ref: logicalId(stack.alarmTopic) }],
    });
  });

  it('does not retry a failed sweep: the next scheduled one repeats its work', () => {
    const configs = resources(template, 'AWS::Lambda::EventInvokeConfig').map(([, config]) => config.Properties);

    for (const schedule of SCHEDULES) {
      expect(configs).toContainEqual(
        expect.objectContaining({
          FunctionName: { Ref: logicalId(fnOf(schedule.fn).fn) },
          MaximumRetryAttempts: 0,
          Qualifier: '$LATEST',
        }),
      );
    }
  });

  it('routes every domain event from the bus to the webhook delivery queue', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['wp-crm'],
        'detail-type': [
          'group.created',
          'group.creation_failed',
          'report.completed',
          'report.failed',
          'message.received',
          'message.status',
          'group.participants_changed',
          'group.updated',
          'group.deleted',
        ],
      },
      // No SqsParameters: EventBridge documents no dynamic MessageGroupId, and a fixed one would make every
      // organisation's events one tenant of the fair queue; the dispatcher regroups each event (CONTRACT §22).
      Targets: [Match.objectLike({ SqsParameters: Match.absent() })],
    });
  });

  it('never grants DynamoDB actions on a wildcard resource (K-5)', () => {
    const dynamo = statements(template).filter(({ statement }) =>
      asArray(statement.Action).some((action) => action.startsWith('dynamodb:')),
    );

    expect(dynamo).not.toHaveLength(0);
    for (const { statement } of dynamo) {
      expect(JSON.stringify(statement.Resource)).not.toContain('*');
      expect(asArray(statement.Action).filter((action) => action.includes('*'))).toEqual([]);
    }
  });

  it('runs the report worker with 1 GB, the longest timeout and the heap settings the benchmark measured', () => {
    const props = template.toJSON().Resources[logicalId(fnOf('report-worker').fn)].Properties;

    expect(props).toMatchObject({ MemorySize: 1024, Timeout: 900 });
    expect(props.Environment.Variables.NODE_OPTIONS).toBe(`--enable-source-maps ${REPORT_WORKER_NODE_OPTIONS}`);
  });

  it('makes the reports bucket private, encrypted, TLS-only and self-expiring (K-5)', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ ExpirationInDays: 8 })]) },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('wires every catalog queue and schedule safely: DLQs with alarms, retries, partial failures, 6× visibility (K-5, G-3)', () => {
    expect(expectSafeQueueSources(template)).toBe(QUEUES.length);
    expect(expectSafeEventTargets(template)).toBeGreaterThanOrEqual(SCHEDULES.length);
    expectSafeQueues(template);
  });

  it('scopes every data-plane grant to resource ARNs, never * (K-5)', () => {
    const dataPlane = /^(dynamodb|sqs|s3|events|kms|secretsmanager|ssm):/;

    const wildcards = statements(template).filter(
      ({ statement }) =>
        asArray(statement.Action).some((action) => dataPlane.test(action)) &&
        asArray(statement.Resource).some((resource) => resource === '*'),
    );

    expect(wildcards.map(({ statement }) => statement.Action)).toEqual([]);
  });

  it("lets only the operators' ChannelTokensRole delete secrets, and only the channels' token secrets", () => {
    const roleId = refId((template.toJSON().Outputs.ChannelTokensRoleArn as { Value: unknown }).Value);
    const role = template.toJSON().Resources[roleId].Properties;
    const deleting = statements(template).filter(({ statement }) =>
      asArray(statement.Action).some((action) => action === 'secretsmanager:DeleteSecret' || action === '*'),
    );

    expect(JSON.stringify(role.AssumeRolePolicyDocument)).toContain(':root');
    expect(deleting.map(({ roles }) => roles)).toEqual([[roleId]]);
    expect(asArray(deleting[0]!.statement.Action).sort()).toEqual([
      'secretsmanager:CreateSecret',
      'secretsmanager:DeleteSecret',
      'secretsmanager:PutSecretValue',
    ]);
    expect(JSON.stringify(deleting[0]!.statement.Resource)).toMatch(/:secret:wp-crm\/dev\/channels\/\*"/);
  });

  it("stops every function before org delete's default drain ends, so the drain outlasts any request or job", () => {
    const timeouts = resources(template, 'AWS::Lambda::Function').map(([, fn]) => Number(fn.Properties.Timeout ?? 3));

    // The drain leaves a minute after the longest timeout for a write sent just before its function was stopped.
    expect(Math.max(...timeouts)).toBeLessThanOrEqual(DEFAULT_DRAIN_SECONDS - 60);
  });

  it('uses standard queues only, so the FIFO ordering rules do not apply (F-7)', () => {
    const fifo = resources(template, 'AWS::SQS::Queue').filter(([, queue]) => queue.Properties.FifoQueue === true);

    expect(fifo).toEqual([]);
  });

  it('exposes the outputs operators and the wpcrm command read', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Description?: string; Export?: unknown }>;

    for (const name of [
      'ApiUrl',
      'TableName',
      'ReportsBucketName',
      'EventBusName',
      'EventBusArn',
      'JwtKeysFunctionName',
      'JwtSigningSecretArn',
      'AlarmTopicArn',
      'ChannelTokensRoleArn',
    ]) {
      expect(outputs[name]?.Description, name).toBeTruthy();
    }
    expect(outputs.EventBusArn?.Export).toEqual({ Name: 'WpCrm-dev-EventBusArn' });
  });

  it('creates the JWT key set through the jwt-keys function, which alone owns the public-keys parameter and item', () => {
    const parameterArn = {
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':ssm:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          ':parameter/wp-crm/dev/jwt/public-keys',
        ],
      ],
    };
    const managerGrants = statements(template).filter(({ roles }) =>
      roles.includes(logicalId(stack.jwtKeys.manager.role)),
    );

    template.hasResourceProperties('Custom::JwtKeySet', {
      SecretId: { Ref: logicalId(stack.jwtKeys.secret) },
      Parameter: '/wp-crm/dev/jwt/public-keys',
      RemoveOnDelete: 'true',
    });
    expect(resources(template, 'AWS::SSM::Parameter')).toEqual([]);
    expect(
      managerGrants.some(
        ({ statement }) =>
          JSON.stringify(statement.Action) === JSON.stringify(['dynamodb:DeleteItem', 'dynamodb:PutItem']) &&
          JSON.stringify(statement.Condition) ===
            JSON.stringify({ 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['JWKS'] } }),
      ),
    ).toBe(true);
    expect(
      managerGrants.some(
        ({ statement }) =>
          asArray(statement.Action).includes('ssm:PutParameter') &&
          JSON.stringify(statement.Resource) === JSON.stringify(parameterArn),
      ),
    ).toBe(true);
    expect(stack.jwtKeys.manager.name).toBe('jwt-keys');
  });

  it('lets dev be torn down completely', () => {
    const stateful = [
      'AWS::DynamoDB::GlobalTable',
      'AWS::S3::Bucket',
      'AWS::SecretsManager::Secret',
      'AWS::SSM::Parameter',
    ];

    for (const type of stateful) {
      for (const [id, resource] of resources(template, type)) expect(resource.DeletionPolicy, id).toBe('Delete');
    }
  });
});

describe('alarm endpoints (-c alarmEmail, -c alarmHttpsEndpoint)', () => {
  const parse = (context: Record<string, string>) => parseAlarmEndpoints(testApp(context).node);

  it('subscribes the operator’s endpoints to the alarm topic of a stack without the edge', () => {
    const stack = buildApp(testApp(ALARM_TEST_CONTEXT), 'dev');
    const template = flatTemplate(stack);

    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: ALARM_TEST_CONTEXT.alarmEmail,
      TopicArn: { Ref: logicalId(stack.alarmTopic) },
    });
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'https',
      Endpoint: ALARM_TEST_CONTEXT.alarmHttpsEndpoint,
      TopicArn: { Ref: logicalId(stack.alarmTopic) },
    });
    expect(parse({ [ALARM_CONTEXT.email]: 'on-call+wp.crm@ops.example.co.uk' })).toEqual({
      email: 'on-call+wp.crm@ops.example.co.uk',
    });
    expect(parse({})).toEqual({});
  });

  it('refuses what is not an email address or an https URL, naming the key', () => {
    for (const email of ['oncall', 'oncall@', '@example.com', 'on call@example.com', 'oncall@example', 'a@b@c.com']) {
      expect(() => parse({ alarmEmail: email }), email).toThrow(/-c alarmEmail must be an email address/);
    }
    for (const url of ['http://alerts.example.com/', 'alerts.example.com', 'https://', 'https://a b.example.com/']) {
      expect(() => parse({ alarmHttpsEndpoint: url }), url).toThrow(/-c alarmHttpsEndpoint must be an https:\/\/ URL/);
    }
    expect(() => parse({ alarmHttpsEndpoint: 'https://user:secret@alerts.example.com/' })).toThrow(
      /without credentials/,
    );
    expect(() => buildApp(testApp({ alarmEmail: 'oncall' }), 'dev')).toThrow(/alarmEmail/);
  });
});

describe('ServiceStack with a raised API Gateway account quota', () => {
  it('gives the network webhook 60 % of the quota the operator declares, and refuses half a declaration', () => {
    const raised = flatTemplate(buildApp(testApp({ apiAccountRateLimit: '20000', apiAccountBurstLimit: '10000' })));
    const [stage] = resources(raised, 'AWS::ApiGatewayV2::Stage');

    expect(stage![1].Properties.RouteSettings['POST /api/wp-crm/network/whatsapp/webhook']).toEqual({
      ThrottlingRateLimit: 12000,
      ThrottlingBurstLimit: 6000,
    });
    expect(() => buildApp(testApp({ apiAccountRateLimit: '20000' }))).toThrow(/apiAccountBurstLimit/);
    expect(() => buildApp(testApp({ apiAccountRateLimit: 'many', apiAccountBurstLimit: '1' }))).toThrow(
      /apiAccountRateLimit must be a positive integer/,
    );
  });
});

describe('ServiceStack (prod)', () => {
  it('retains the table, the bucket, the keys and the logs', () => {
    const stack = buildApp(testApp(EDGE_TEST_CONTEXT), 'prod');

    const template = flatTemplate(stack);

    expect(stack.stackName).toBe('WpCrm-prod');
    const stateful = [
      'AWS::DynamoDB::GlobalTable',
      'AWS::S3::Bucket',
      'AWS::SecretsManager::Secret',
      'AWS::SSM::Parameter',
      'AWS::Logs::LogGroup',
    ];
    for (const type of stateful) {
      for (const [id, resource] of resources(template, type)) expect(resource.DeletionPolicy, id).toBe('Retain');
    }
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      Replicas: [Match.objectLike({ DeletionProtectionEnabled: true })],
    });
    template.resourceCountIs('Custom::S3AutoDeleteObjects', 0);
  });

  it("warns 30 days before the origin domain's certificate expires, to the operators' topic", () => {
    const stack = buildApp(testApp(EDGE_TEST_CONTEXT), 'prod');
    const template = flatTemplate(stack);

    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/CertificateManager',
      MetricName: 'DaysToExpiry',
      Dimensions: [{ Name: 'CertificateArn', Value: EDGE_TEST_CONTEXT.edgeOriginCertificateArn }],
      Threshold: 30,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
      AlarmActions: [{ Ref: logicalId(stack.alarmTopic) }],
    });
  });
});

describe('parseStage', () => {
  it('accepts dev and prod and refuses anything else', () => {
    expect(parseStage('prod')).toBe('prod');
    expect(parseStage(undefined)).toBe('dev');
    expect(() => parseStage('staging')).toThrow(/unknown stage "staging"/);
  });
});
