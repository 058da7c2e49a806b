import { type App, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { AppFunction } from '#infra/aws/constructs/app-function';
import { DataStore } from '#infra/aws/constructs/data-store';
import { EventRules, toCdkPattern } from '#infra/aws/constructs/event-rules';
import { QueueWorker } from '#infra/aws/constructs/queue-worker';
import type { QueueDef, ScheduleDef } from '#infra/aws/functions';
import { queueUrlVariable } from '#shared/adapters/sqs/job-queue';
import type { BusRule } from '#shared/events/catalog';
import {
  appFunctions,
  expectSafeEventTargets,
  expectSafeQueueSources,
  expectSafeQueues,
  expectStandardFunctions,
  logicalId,
  statements,
  testApp,
} from './support.ts';

// Existing function folders stand in for the consumers: bundling is skipped, only the entry must exist.
const QUEUE: QueueDef = {
  name: 'sample-jobs',
  consumer: 'get-health',
  batchSize: 5,
  timeoutSeconds: 40,
  maxReceiveCount: 6,
  maxConcurrency: 3,
  alarmAgeMinutes: 20,
};
const RULE: BusRule = {
  id: 'sample-deliveries',
  description: 'Every group event goes to the sample queue',
  pattern: { source: ['wp-crm'], 'detail-type': [{ prefix: 'group.' }], detail: { orgId: [{ exists: true }] } },
  targetQueue: QUEUE.name,
};
const SCHEDULE: ScheduleDef = { name: 'sample-sweeper', fn: 'get-openapi', everyMinutes: 5 };

describe('QueueWorker and EventRules', () => {
  let app: App;
  let stack: Stack;
  let worker: QueueWorker;
  let producer: AppFunction;
  let template: Template;

  beforeAll(() => {
    app = testApp();
    stack = new Stack(app, 'Sample');
    const data = new DataStore(stack, 'Data');
    worker = new QueueWorker(stack, 'SampleJobs', { def: QUEUE });
    const sweeper = new AppFunction(stack, 'Sweeper', { fn: SCHEDULE.fn });
    producer = new AppFunction(stack, 'Producer', { fn: 'list-channels' })
      .bindEventBus(data.bus)
      .bindReportsBucket(data.reports);
    worker.bindProducer(producer);
    new EventRules(stack, 'Events', {
      bus: data.bus,
      rules: [RULE],
      queues: new Map([[QUEUE.name, worker.queue]]),
      schedules: [SCHEDULE],
      functionFor: () => sweeper.fn,
    });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    template = Template.fromStack(stack);
  });

  it('gives the queue a DLQ, an alarm, partial batch failures and 6× the function timeout (K-5)', () => {
    expect(expectSafeQueueSources(template)).toBe(1);

    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 6 * QUEUE.timeoutSeconds,
      RedrivePolicy: { maxReceiveCount: QUEUE.maxReceiveCount },
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: QUEUE.batchSize,
      ScalingConfig: { MaximumConcurrency: QUEUE.maxConcurrency },
    });
    template.hasResourceProperties('AWS::Lambda::Function', { Timeout: QUEUE.timeoutSeconds });
  });

  it('encrypts every queue and refuses plain HTTP', () => {
    expectSafeQueues(template);
  });

  it('routes the bus rule to the queue and the schedule to its function, with retries and a DLQ (G-3)', () => {
    expect(expectSafeEventTargets(template)).toBe(2);

    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: { Ref: Match.anyValue() },
      EventPattern: {
        source: ['wp-crm'],
        'detail-type': [{ prefix: 'group.' }],
        detail: { orgId: [{ exists: true }] },
      },
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId(worker.queue), 'Arn'] } })],
    });
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(5 minutes)' });
  });

  it('gives a producer the queue URL variable and send rights on that queue only', () => {
    const env = template.toJSON().Resources[logicalId(producer.fn)].Properties.Environment.Variables;

    expect(env[queueUrlVariable(QUEUE.name)]).toEqual({ Ref: logicalId(worker.queue) });
    expect(env).toMatchObject({ EVENT_BUS_NAME: expect.anything(), REPORTS_BUCKET: expect.anything() });
    const sends = statements(template).filter(({ statement }) => [statement.Action].flat().includes('sqs:SendMessage'));
    expect(sends.map(({ roles }) => roles)).toEqual([[logicalId(producer.role)]]);
    expect(sends[0]!.statement.Resource).toEqual({ 'Fn::GetAtt': [logicalId(worker.queue), 'Arn'] });
  });

  it('applies the project defaults to every function', () => {
    expectStandardFunctions(template, appFunctions(stack));
  });

  it('passes the cdk-nag AwsSolutions checks', () => {
    expect(() => app.synth()).not.toThrow();
  });

  it('refuses a queue that gives up after fewer than 5 receives', () => {
    const scratch = new Stack(testApp(), 'Scratch');

    expect(() => new QueueWorker(scratch, 'Hasty', { def: { ...QUEUE, maxReceiveCount: 3 } })).toThrow(/at least 5/);
  });
});

describe('toCdkPattern', () => {
  it('renames detail-type for CDK and keeps every other key', () => {
    expect(
      toCdkPattern({ source: ['wp-crm'], 'detail-type': ['report.completed'], detail: { status: ['OK'] } }),
    ).toEqual({
      source: ['wp-crm'],
      detailType: ['report.completed'],
      detail: { status: ['OK'] },
    });
  });
});
