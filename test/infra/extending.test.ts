import { Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '#infra/aws/build-app';
import { FUNCTIONS, type FunctionRow } from '#infra/aws/functions';
import { ServiceStack } from '#infra/aws/stacks/service-stack';
import { ADMINS } from '#shared/domain/auth/roles';
import { ROUTES } from '#shared/routes/index';
import { defineRoute, routeKey } from '#shared/routes/route';
import { ListQuery } from '#shared/schemas/common';
import { asArray, flatTemplate, type Json, logicalId, refId, resources, statements, testApp } from './support.ts';

/**
 * docs/extending.md, "Adding a route" and "Adding a worker": what the infrastructure needs of a new route is its
 * definition (shared/routes) and one row; of a new worker, one row. Everything else — the function in its concern's
 * stack, its role with exactly the row's grants, its environment, its alarms, the route with its integration,
 * permission and throttle, the queue with its DLQ, their alarms and the event source — follows from them.
 */
const listWidgets = defineRoute({
  operationId: 'listWidgets',
  method: 'GET',
  path: '/widgets/{orgId}',
  fn: 'list-widgets',
  summary: 'List the widgets (a fixture: no such route exists)',
  tag: 'widgets',
  auth: ADMINS,
  orgParam: 'orgId',
  query: ListQuery,
  responses: { 200: { description: 'A page of widgets', schema: 'WebhookList' } },
});

/** The rows the fixture adds: the route's function, and a worker it sends jobs to. */
const ROWS: Record<string, FunctionRow> = {
  'list-widgets': {
    concern: 'Webhooks',
    access: { table: 'read', indexes: ['GSI1'], sendsTo: ['widget-jobs'] },
    settings: ['WEBHOOK_SUBSCRIPTION_LIMIT'],
  },
  'widget-worker': {
    concern: 'Webhooks',
    access: { table: 'readWrite', sendsTo: ['widget-jobs'] },
    timeoutSeconds: 30,
    queue: { name: 'widget-jobs', batchSize: 10, maxReceiveCount: 5, maxConcurrency: 2, alarmAgeMinutes: 15 },
  },
};

const functionIds = (template: Template) => resources(template, 'AWS::Lambda::Function').map(([id]) => id);

describe('a new route and a new worker are their definition and one row each (docs/extending.md)', () => {
  let stock: Template;
  let stack: ServiceStack;
  let template: Template;
  const fnId = (fn: string) => logicalId(stack.functions.get(fn)!.fn);
  const roleId = (fn: string) => logicalId(stack.functions.get(fn)!.role);
  const alarmsOn = (id: string) =>
    resources(template, 'AWS::CloudWatch::Alarm')
      .map(([, alarm]) => alarm.Properties)
      .filter((alarm) => JSON.stringify(alarm.Dimensions ?? []).includes(`"${id}"`));

  beforeAll(() => {
    stock = flatTemplate(buildApp(testApp(), 'dev'));
    stack = new ServiceStack(testApp(), 'WpCrm-dev', {
      stage: 'dev',
      jwtIssuer: 'https://wp-crm.dev',
      jwtAudience: 'wp-crm-api',
      routes: [...ROUTES, listWidgets],
      functions: { ...FUNCTIONS, ...ROWS },
    });
    template = flatTemplate(stack);
  });

  it('adds the route’s function (9 resources) and the worker (13) to their concern’s stack, and changes no other id', () => {
    const before = stock.toJSON().Resources as Record<string, Json>;
    const after = template.toJSON().Resources as Record<string, Json>;
    const added = Object.keys(after).filter((id) => !(id in before));

    expect(Object.keys(before).filter((id) => !(id in after))).toEqual([]);
    for (const id of Object.keys(before)) expect(after[id]!.Type, id).toBe(before[id]!.Type);
    expect(added).toHaveLength(9 + 13);
    // Every added resource is in the Webhooks stack (the flat template prefixes it with the nested stack's id).
    expect(added.filter((id) => !id.startsWith('Webhooks'))).toEqual([]);
    expect(Stack.of(stack.functions.get('list-widgets')!).node.id).toBe('Webhooks');
    expect(functionIds(template)).toHaveLength(functionIds(stock).length + 2);
  });

  it('routes the new route to its function, with a permission and a throttle of its own', () => {
    const [[, route]] = resources(template, 'AWS::ApiGatewayV2::Route').filter(
      ([, candidate]) => candidate.Properties.RouteKey === routeKey(listWidgets),
    ) as [[string, Json]];
    const integration = template.toJSON().Resources[refId(route.Properties.Target['Fn::Join'][1][1])];
    const [[, stage]] = resources(template, 'AWS::ApiGatewayV2::Stage') as [[string, Json]];

    expect(refId(integration.Properties.IntegrationUri)).toBe(fnId('list-widgets'));
    expect(
      resources(template, 'AWS::Lambda::Permission').filter(
        ([, permission]) => refId(permission.Properties.FunctionName) === fnId('list-widgets'),
      ),
    ).toHaveLength(1);
    expect(stage.Properties.RouteSettings[routeKey(listWidgets)]).toEqual({
      ThrottlingRateLimit: 100,
      ThrottlingBurstLimit: 200,
    });
  });

  it('grants the route’s function exactly its row’s access and what its route implies, with the variables for them', () => {
    const granted = statements(template)
      .filter(({ roles }) => roles.includes(roleId('list-widgets')))
      .flatMap(({ statement }) => asArray(statement.Action))
      .sort();
    const environment = template.toJSON().Resources[fnId('list-widgets')].Properties.Environment.Variables;

    // Its row: the table read (its organisations' items: the tenant-access role, CONTRACT §25), sending to the worker's
    // queue. Its route: the public keys and the access status (an authenticated route; the quota windows are its
    // organisation's), the cursor key (a list); its log group, X-Ray.
    expect([...new Set(granted)]).toEqual([
      'dynamodb:GetItem',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      'secretsmanager:GetSecretValue',
      'sqs:SendMessage',
      'sts:AssumeRole',
      'sts:TagSession',
      'xray:PutTelemetryRecords',
      'xray:PutTraceSegments',
    ]);
    expect(Object.keys(environment).sort()).toEqual([
      'CURSOR_KEY_SECRET_ID',
      'JWT_AUDIENCE',
      'JWT_ISSUER',
      'NODE_OPTIONS',
      'POWERTOOLS_LOG_LEVEL',
      'POWERTOOLS_SERVICE_NAME',
      'TABLE_NAME',
      'TENANT_ACCESS_ROLE_ARN',
      'WEBHOOK_SUBSCRIPTION_LIMIT',
      'WIDGET_JOBS_QUEUE_URL',
    ]);
    expect(environment.WEBHOOK_SUBSCRIPTION_LIMIT).toBe('20');
  });

  it('alarms on both functions and the worker’s queue, each notifying the operators’ topic', () => {
    const topic = { Ref: logicalId(stack.alarmTopic) };
    const worker = stack.workers.get('widget-jobs')!;

    for (const fn of ['list-widgets', 'widget-worker']) {
      expect(
        alarmsOn(fnId(fn))
          .map((alarm) => alarm.MetricName)
          .sort(),
        fn,
      ).toEqual(['Errors', 'Throttles']);
    }
    expect(alarmsOn(logicalId(worker.queue)).map((alarm) => alarm.MetricName)).toEqual([
      'ApproximateAgeOfOldestMessage',
    ]);
    expect(alarmsOn(logicalId(worker.deadLetterQueue)).map((alarm) => alarm.MetricName)).toEqual([
      'ApproximateNumberOfMessagesVisible',
    ]);
    for (const id of [fnId('list-widgets'), fnId('widget-worker'), logicalId(worker.queue)]) {
      for (const alarm of alarmsOn(id)) expect(alarm.AlarmActions, id).toEqual([topic]);
    }
  });

  it('feeds the worker from its queue as its row says: batch, concurrency reserved, visibility 6× its timeout', () => {
    const worker = stack.workers.get('widget-jobs')!;
    const [[, mapping]] = resources(template, 'AWS::Lambda::EventSourceMapping').filter(
      ([, candidate]) => refId(candidate.Properties.FunctionName) === fnId('widget-worker'),
    ) as [[string, Json]];
    const fn = template.toJSON().Resources[fnId('widget-worker')].Properties;
    const queue = template.toJSON().Resources[logicalId(worker.queue)].Properties;

    expect(refId(mapping.Properties.EventSourceArn)).toBe(logicalId(worker.queue));
    expect(mapping.Properties).toMatchObject({
      BatchSize: 10,
      ScalingConfig: { MaximumConcurrency: 2 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(fn).toMatchObject({ Timeout: 30, ReservedConcurrentExecutions: 2 });
    expect(queue.VisibilityTimeout).toBe(180);
    expect(queue.RedrivePolicy.maxReceiveCount).toBe(5);
  });

  it('refuses a route without a row, and a row that serves nothing', () => {
    const build = (props: Partial<ConstructorParameters<typeof ServiceStack>[2]>) => () =>
      new ServiceStack(testApp(), 'WpCrm-dev', {
        stage: 'dev',
        jwtIssuer: 'https://wp-crm.dev',
        jwtAudience: 'wp-crm-api',
        ...props,
      });

    expect(build({ routes: [...ROUTES, listWidgets] })).toThrow(
      /function list-widgets has no row: add it to FUNCTIONS/,
    );
    expect(build({ functions: { ...FUNCTIONS, 'list-widgets': ROWS['list-widgets']! } })).toThrow(
      /rows of FUNCTIONS that serve nothing: list-widgets/,
    );
  });
});
