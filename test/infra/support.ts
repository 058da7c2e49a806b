import { readFileSync } from 'node:fs';
import { App, type CfnElement, NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { expect } from 'vitest';
import { AppFunction, REPO_ROOT } from '#infra/aws/constructs/app-function';
import { flattenTemplate, type NestedTemplate } from '#infra/cdk-local/flatten';
import type { Template as TemplateJson } from '#infra/cdk-local/template';

// biome-ignore lint/suspicious/noExplicitAny: templates are untyped JSON; tests assert field by field
export type Json = Record<string, any>;
export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

/**
 * An App with the project's feature flags and bundling skipped; the WASM template validator is off (fast) unless
 * `validate` asks for it, as `cdk synth` runs it.
 */
export function testApp(extra: Json = {}, { validate = false } = {}): App {
  const { context } = JSON.parse(readFileSync(`${REPO_ROOT}cdk.json`, 'utf8')) as { context: Json };
  // vitest.config.ts sets CDK_VALIDATION=false for speed, which aws-cdk-lib reads at synth over the App's setting.
  if (validate) delete process.env.CDK_VALIDATION;
  return new App({
    context: { ...context, 'aws:cdk:bundling-stacks': [], ...extra },
    builtinCloudFormationValidation: validate,
  });
}

/** An operator's edge settings (infra/aws/edge.ts), as `-c` context. */
export const EDGE_TEST_CONTEXT = {
  edgeDomainName: 'api.example.com',
  edgeCertificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
  edgeOriginDomainName: 'origin.api.example.com',
  edgeOriginCertificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/66666666-7777-8888-9999-000000000000',
  edgeOriginTruststoreUri: 's3://example-truststore/wp-crm/cloudfront-ca.pem',
  edgeOriginClientCertificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee',
};

/** The edge's optional setting, for an origin certificate that is imported or private (infra/aws/edge.ts). */
export const EDGE_OWNERSHIP_TEST_CONTEXT = {
  edgeOriginOwnershipCertificateArn:
    'arn:aws:acm:eu-west-1:123456789012:certificate/12121212-3434-5656-7878-909090909090',
};

/** An operator's alarm endpoints (infra/aws/alarm-endpoints.ts), as `-c` context. */
export const ALARM_TEST_CONTEXT = {
  alarmEmail: 'oncall@example.com',
  alarmHttpsEndpoint: 'https://alerts.example.com/hooks/wp-crm',
};

/**
 * A construct's logical id in the flat template (flatTemplate): its nested stacks' construct ids, outermost first,
 * in front of its id in its own stack.
 */
export function logicalId(construct: IConstruct): string {
  const element = (construct.node.defaultChild ?? construct) as CfnElement;
  let stack = Stack.of(element);
  let id = stack.getLogicalId(element);
  while (stack.nested) {
    id = `${stack.node.id}${id}`;
    stack = (stack as NestedStack).nestedStackParent!;
  }
  return id;
}

/** The nested stacks directly below `stack`, with their own, as flattenTemplate takes them. */
function nestedTemplates(stack: Stack): NestedTemplate[] {
  const children = stack.node
    .findAll()
    .filter((construct): construct is NestedStack => construct instanceof NestedStack)
    .filter((nested) => nested.nestedStackParent === stack);
  return children.map((nested) => {
    const resource = nested.nestedStackResource!;
    return {
      resourceId: stack.getLogicalId(resource),
      prefix: nested.node.id,
      template: Template.fromStack(nested).toJSON() as TemplateJson,
      nested: nestedTemplates(nested),
    };
  });
}

/** Every template `cdk deploy` would upload for the app's stacks: each stack's and each nested stack's. */
export function stackTemplates(app: App): { name: string; template: TemplateJson }[] {
  const stacks = app.node.children.filter((child): child is Stack => child instanceof Stack);
  const nestedOf = (stack: Stack, name: string): { name: string; template: TemplateJson }[] =>
    nestedTemplates(stack).flatMap((nested) => [
      { name: `${name}/${nested.prefix}`, template: nested.template },
      ...flattenNames(nested, `${name}/${nested.prefix}`),
    ]);
  const flattenNames = (nested: NestedTemplate, name: string): { name: string; template: TemplateJson }[] =>
    nested.nested.flatMap((child) => [
      { name: `${name}/${child.prefix}`, template: child.template },
      ...flattenNames(child, `${name}/${child.prefix}`),
    ]);
  return stacks.flatMap((stack) => [
    { name: stack.stackName, template: Template.fromStack(stack).toJSON() as TemplateJson },
    ...nestedOf(stack, stack.stackName),
  ]);
}

/**
 * The stack with its nested stacks as one template (infra/cdk-local/flatten.ts, what `npm run start:cdk` runs):
 * every resource of the deployment, each id as logicalId() gives it, references across stacks resolved.
 */
export function flatTemplate(stack: Stack): Template {
  const root = Template.fromStack(stack).toJSON() as TemplateJson;
  return Template.fromJSON(flattenTemplate(root, nestedTemplates(stack)) as unknown as Record<string, unknown>);
}

export const resources = (template: Template, type: string): [string, Json][] =>
  Object.entries(template.findResources(type) as Record<string, Json>);

export const asArray = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** `{"Fn::GetAtt":[id,…]}` or `{"Ref":id}` → id. */
export function refId(value: unknown): string {
  const ref = value as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
  const id = ref.Ref ?? ref['Fn::GetAtt']?.[0];
  if (!id) throw new Error(`not a reference: ${JSON.stringify(value)}`);
  return id;
}

export function appFunctions(scope: IConstruct): AppFunction[] {
  return scope.node.findAll().filter((construct): construct is AppFunction => construct instanceof AppFunction);
}

/** Every Allow statement of the template's policies, with the roles the policy is attached to. */
export function statements(template: Template): { roles: string[]; statement: Statement }[] {
  return resources(template, 'AWS::IAM::Policy').flatMap(([, policy]) =>
    asArray(policy.Properties.PolicyDocument.Statement as Statement[])
      .filter((statement) => statement.Effect === 'Allow')
      .map((statement) => ({ roles: (policy.Properties.Roles as unknown[]).map(refId), statement })),
  );
}

/** Every SQS event source: partial batch failures, concurrency cap, redrive ≥ 5, visibility ≥ 6× timeout, DLQ alarm. */
export function expectSafeQueueSources(template: Template): number {
  const queues = template.findResources('AWS::SQS::Queue') as Record<string, Json>;
  const functions = template.findResources('AWS::Lambda::Function') as Record<string, Json>;
  const alarms = resources(template, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
  const mappings = resources(template, 'AWS::Lambda::EventSourceMapping');
  for (const [id, { Properties: mapping }] of mappings) {
    const queueId = refId(mapping.EventSourceArn);
    const queue = queues[queueId]?.Properties;
    const fn = functions[refId(mapping.FunctionName)]?.Properties;
    expect(queue, `${id} reads an SQS queue of this stack`).toBeDefined();
    expect(mapping.FunctionResponseTypes, id).toContain('ReportBatchItemFailures');
    expect(mapping.ScalingConfig?.MaximumConcurrency, id).toBeGreaterThanOrEqual(2);
    expect(queue.RedrivePolicy?.maxReceiveCount, queueId).toBeGreaterThanOrEqual(5);
    expect(queue.VisibilityTimeout, queueId).toBeGreaterThanOrEqual(6 * fn.Timeout);
    // Lambda never throttles what the event source took: a throttled batch counts a receive (K-5, CONTRACT §22).
    expect(fn.ReservedConcurrentExecutions, id).toBeGreaterThanOrEqual(mapping.ScalingConfig.MaximumConcurrency);

    const dlqId = refId(queue.RedrivePolicy.deadLetterTargetArn);
    const dlq = queues[dlqId]!.Properties;
    expect(dlq.MessageRetentionPeriod, dlqId).toBeGreaterThan(queue.MessageRetentionPeriod ?? 345_600);
    expect(
      alarms.some((alarm) => watchesQueue(alarm, dlqId)),
      `${dlqId} has an alarm`,
    ).toBe(true);
  }
  return mappings.length;
}

/** Every EventBridge target retries explicitly and keeps what it could not deliver in a DLQ that has an alarm. */
export function expectSafeEventTargets(template: Template): number {
  const alarms = resources(template, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
  const targets = resources(template, 'AWS::Events::Rule').flatMap(([id, rule]) =>
    (rule.Properties.Targets as Json[]).map((target) => ({ id, target })),
  );
  for (const { id, target } of targets) {
    expect(target.RetryPolicy?.MaximumRetryAttempts, id).toBeDefined();
    expect(target.RetryPolicy?.MaximumEventAgeInSeconds, id).toBeDefined();
    const dlqId = refId(target.DeadLetterConfig?.Arn ?? {});
    expect(
      alarms.some((alarm) => watchesQueue(alarm, dlqId)),
      `${dlqId} has an alarm`,
    ).toBe(true);
  }
  return targets.length;
}

const watchesQueue = (alarm: Json, queueId: string) =>
  alarm.MetricName === 'ApproximateNumberOfMessagesVisible' &&
  alarm.Threshold === 0 &&
  (alarm.Dimensions as Json[]).some(
    (dimension) => dimension.Name === 'QueueName' && refId(dimension.Value) === queueId,
  );

/** Every queue is encrypted and refuses plain HTTP. */
export function expectSafeQueues(template: Template): void {
  const policies = resources(template, 'AWS::SQS::QueuePolicy').map(([, policy]) => policy.Properties);
  for (const [id, queue] of resources(template, 'AWS::SQS::Queue')) {
    expect(queue.Properties.SqsManagedSseEnabled, id).toBe(true);
    const deniesHttp = policies.some(
      (policy) =>
        (policy.Queues as unknown[]).some((queueRef) => refId(queueRef) === id) &&
        (policy.PolicyDocument.Statement as Json[]).some(
          (statement) => statement.Effect === 'Deny' && statement.Condition?.Bool?.['aws:SecureTransport'] === 'false',
        ),
    );
    expect(deniesHttp, `${id} denies non-TLS requests`).toBe(true);
  }
}

/** Every function running our code: Node.js 22 on arm64, traced, source maps, a log group with a retention. */
export function expectStandardFunctions(template: Template, fns: AppFunction[]): void {
  const functions = template.findResources('AWS::Lambda::Function') as Record<string, Json>;
  const logGroups = template.findResources('AWS::Logs::LogGroup') as Record<string, Json>;
  for (const fn of fns) {
    const props = functions[logicalId(fn.fn)]!.Properties;
    expect(props.Runtime, fn.name).toBe('nodejs22.x');
    expect(props.Architectures, fn.name).toEqual(['arm64']);
    expect(props.TracingConfig, fn.name).toEqual({ Mode: 'Active' });
    expect(props.Environment.Variables.NODE_OPTIONS, fn.name).toMatch(/^--enable-source-maps( |$)/);
    expect(props.Environment.Variables, fn.name).toMatchObject({
      POWERTOOLS_SERVICE_NAME: 'wp-crm',
      POWERTOOLS_LOG_LEVEL: 'INFO',
    });
    expect(logGroups[refId(props.LoggingConfig.LogGroup)]?.Properties.RetentionInDays, fn.name).toBeGreaterThan(0);
  }
}
