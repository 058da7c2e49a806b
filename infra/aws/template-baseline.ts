import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from './build-app.ts';
import { CONFIGURATIONS } from './configurations.ts';
import { REPO_ROOT } from './constructs/function-bundle.ts';
import { parseStage } from './stage.ts';

/**
 * The synthesized templates as a baseline that a change to the infrastructure is held to
 * (test/infra/template-baseline.test.ts): per documented configuration and template (the stacks and each nested
 * stack), each resource's logical id with its type and the properties that matter — a function's variable names,
 * timeout, memory and reserved concurrency, a policy's actions, a queue's visibility and redrive, an event source's
 * batch and concurrency, a route's key, an alarm's metric and actions. `npm run templates:baseline` writes it again,
 * deliberately, once a change's differences are intended and named.
 */
export const BASELINE_FILE = 'test/infra/template-baseline.json';

/**
 * Configuration → template → logical id → the resource's summary. The templates are named by their role, not their
 * stage (`Service`, `Service/Chats`, `Edge`), so that configurations compare template by template.
 */
export type Baseline = Record<string, Record<string, Record<string, string>>>;

/** As the file holds it: a template equal to an earlier configuration's is written `"same as <configuration>"`. */
type StoredBaseline = Record<string, Record<string, Record<string, string> | string>>;

const SAME_AS = 'same as ';

// biome-ignore lint/suspicious/noExplicitAny: templates are untyped JSON, read field by field
type Json = Record<string, any>;

const list = (values: unknown[]) => [...new Set(values.map(String))].sort().join(',');
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);

/** The actions a policy document allows and denies, as `Allow:<action>`, sorted. */
function actionsOf(document: Json | undefined): string {
  const statements = asArray(document?.Statement) as Json[];
  return list(
    statements.flatMap((statement) => asArray(statement.Action).map((action) => `${statement.Effect}:${action}`)),
  );
}

const SUMMARIES: Record<string, (props: Json) => Record<string, unknown>> = {
  'AWS::Lambda::Function': (props) => ({
    env: list(Object.keys(props.Environment?.Variables ?? {})),
    timeout: props.Timeout,
    memory: props.MemorySize,
    reserved: props.ReservedConcurrentExecutions,
  }),
  'AWS::IAM::Policy': (props) => ({ actions: actionsOf(props.PolicyDocument) }),
  'AWS::IAM::Role': (props) => ({
    inline: list((asArray(props.Policies) as Json[]).map((policy) => actionsOf(policy.PolicyDocument))),
  }),
  'AWS::SQS::Queue': (props) => ({
    visibility: props.VisibilityTimeout,
    retention: props.MessageRetentionPeriod,
    receives: props.RedrivePolicy?.maxReceiveCount,
  }),
  'AWS::SQS::QueuePolicy': (props) => ({ actions: actionsOf(props.PolicyDocument) }),
  'AWS::Lambda::EventSourceMapping': (props) => ({
    batch: props.BatchSize,
    concurrency: props.ScalingConfig?.MaximumConcurrency,
  }),
  'AWS::ApiGatewayV2::Route': (props) => ({ key: props.RouteKey }),
  'AWS::CloudWatch::Alarm': (props) => ({
    metric: props.MetricName ?? 'math',
    actions: asArray(props.AlarmActions).length,
  }),
  'AWS::Events::Rule': (props) => ({ schedule: props.ScheduleExpression, targets: asArray(props.Targets).length }),
};

/** One resource as the baseline records it: `Type key=value …`, the properties that are not set left out. */
export function summary(resource: Json): string {
  const properties = SUMMARIES[resource.Type]?.(resource.Properties ?? {}) ?? {};
  const parts = Object.entries(properties)
    .filter(([, value]) => value !== undefined && value !== '')
    .map(([key, value]) => `${key}=${value}`);
  return [resource.Type, ...parts].join(' ');
}

/** Every template of the app (each stack, and each nested stack as `<stack>/<nested id>`), summarized. */
function templatesOf(app: App): Record<string, Record<string, string>> {
  const templates: Record<string, Record<string, string>> = {};
  const add = (name: string, stack: Stack) => {
    const resources = Template.fromStack(stack).toJSON().Resources as Record<string, Json>;
    templates[name] = Object.fromEntries(
      Object.keys(resources)
        .sort()
        .map((id) => [id, summary(resources[id]!)]),
    );
    const nested = stack.node
      .findAll()
      .filter((construct): construct is NestedStack => construct instanceof NestedStack)
      .filter((child) => child.nestedStackParent === stack);
    for (const child of nested) add(`${name}/${child.node.id}`, child);
  };
  for (const stack of app.node.children.filter((child): child is Stack => child instanceof Stack)) {
    add(stack.stackName.endsWith('-Edge') ? 'Edge' : 'Service', stack);
  }
  return templates;
}

/** The baseline of the code as it is: each documented configuration synthesized (bundling skipped). */
export function currentBaseline(): Baseline {
  const { context } = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as { context: Json };
  return Object.fromEntries(
    CONFIGURATIONS.map((configuration) => {
      const app = new App({
        context: { ...context, ...configuration.context, 'aws:cdk:bundling-stacks': [] },
        builtinCloudFormationValidation: false,
      });
      buildApp(app, parseStage(configuration.stage));
      return [configuration.name, templatesOf(app)];
    }),
  );
}

export function committedBaseline(): Baseline {
  const stored = JSON.parse(readFileSync(join(REPO_ROOT, BASELINE_FILE), 'utf8')) as StoredBaseline;
  const baseline: Baseline = {};
  for (const [configuration, templates] of Object.entries(stored)) {
    baseline[configuration] = Object.fromEntries(
      Object.entries(templates).map(([name, template]) => [
        name,
        typeof template === 'string' ? baseline[template.slice(SAME_AS.length)]![name]! : template,
      ]),
    );
  }
  return baseline;
}

/** The baseline as the file holds it: each template written out once, by the first configuration that has it. */
function stored(baseline: Baseline): StoredBaseline {
  const written: [string, Record<string, Record<string, string>>][] = [];
  const result: StoredBaseline = {};
  for (const [configuration, templates] of Object.entries(baseline)) {
    result[configuration] = Object.fromEntries(
      Object.entries(templates).map(([name, template]) => {
        const text = JSON.stringify(template);
        const earlier = written.find(([, others]) => others[name] && JSON.stringify(others[name]) === text);
        return [name, earlier ? `${SAME_AS}${earlier[0]}` : template];
      }),
    );
    written.push([configuration, templates]);
  }
  return result;
}

/** One difference between two baselines: a resource added, removed or changed in a template of a configuration. */
export interface Difference {
  configuration: string;
  template: string;
  logicalId: string;
  before?: string;
  after?: string;
}

export function differences(before: Baseline, after: Baseline): Difference[] {
  const found: Difference[] = [];
  for (const configuration of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const [was, is] = [before[configuration] ?? {}, after[configuration] ?? {}];
    for (const template of new Set([...Object.keys(was), ...Object.keys(is)])) {
      const [old, now] = [was[template] ?? {}, is[template] ?? {}];
      for (const logicalId of new Set([...Object.keys(old), ...Object.keys(now)])) {
        if (old[logicalId] !== now[logicalId]) {
          found.push({ configuration, template, logicalId, before: old[logicalId], after: now[logicalId] });
        }
      }
    }
  }
  return found;
}

// `npm run templates:baseline`: writes the baseline of the code as it is.
if (process.argv[1] && import.meta.filename === process.argv[1]) {
  writeFileSync(join(REPO_ROOT, BASELINE_FILE), `${JSON.stringify(stored(currentBaseline()), null, 1)}\n`);
  console.log(`wrote ${BASELINE_FILE}`);
}
