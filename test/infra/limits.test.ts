import { readFileSync } from 'node:fs';
import type { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { buildApp } from '#infra/aws/build-app';
import { AppFunction, REPO_ROOT } from '#infra/aws/constructs/app-function';
import { API_ACCOUNT_THROTTLE_DEFAULT } from '#infra/aws/constructs/service-api';
import { QUEUES } from '#infra/aws/functions';
import {
  concurrencyQuota,
  functionFootprints,
  HEADROOM,
  LAMBDA_UNRESERVED_MINIMUM,
  LIMITS,
  measureDeployment,
  overHeadroom,
} from '#infra/aws/limits';
import type { Template } from '#infra/cdk-local/template';
import {
  ALARM_TEST_CONTEXT,
  EDGE_OWNERSHIP_TEST_CONTEXT,
  EDGE_TEST_CONTEXT,
  flatTemplate,
  logicalId,
  stackTemplates,
  testApp,
} from './support.ts';

/** The page that states the account quotas to check before deploying (its Deploy section). */
const DEPLOY_DOC = 'docs/deployment.md';

/** Every documented stage and option (docs/deployment.md), as `cdk deploy` would receive them. */
const CONFIGURATIONS = [
  { name: 'dev', stage: 'dev', context: {} },
  { name: 'dev with the edge', stage: 'dev', context: EDGE_TEST_CONTEXT },
  { name: 'prod with the edge', stage: 'prod', context: EDGE_TEST_CONTEXT },
  {
    name: 'prod with the edge and every option (a raised API Gateway quota, ownership certificate, alarm endpoints)',
    stage: 'prod',
    context: {
      ...EDGE_TEST_CONTEXT,
      ...EDGE_OWNERSHIP_TEST_CONTEXT,
      ...ALARM_TEST_CONTEXT,
      apiAccountRateLimit: '20000',
      apiAccountBurstLimit: '10000',
    },
  },
] as const;

type Configuration = (typeof CONFIGURATIONS)[number];

function synthesize(configuration: Configuration, validate = false) {
  const app: App = testApp({ ...configuration.context }, { validate });
  const stack = buildApp(app, configuration.stage);
  return { app, stack, stacks: stackTemplates(app), flat: flatTemplate(stack).toJSON() as Template };
}

/** Each configuration synthesized once (without the validator) for the tests that only read its templates. */
const synthesized = new Map<Configuration, ReturnType<typeof synthesize>>();
function templatesOf(configuration: Configuration) {
  let result = synthesized.get(configuration);
  if (!result) {
    result = synthesize(configuration);
    synthesized.set(configuration, result);
  }
  return result;
}

/**
 * The Lambda concurrency quota as DEPLOY_DOC states it, in its table of account quotas: the row
 * `| Lambda: concurrent executions | <needed> or more (<reserved> reserved + the <minimum> AWS keeps unreserved) | …`
 * and, in its last column, each consumer's reservation `… reserves its event source's maximum concurrency (group
 * worker 6, message sender 10, …)`, named as its functions/ folder with spaces for hyphens.
 */
function statedConcurrency(doc: string) {
  const number = (text: string) => Number(text.replaceAll(',', ''));
  const rows = doc.split('\n').filter((line) => /^\|\s*Lambda: concurrent executions\s*\|/.test(line));
  expect(rows, `${DEPLOY_DOC}: one "Lambda: concurrent executions" row in the quota table`).toHaveLength(1);
  const figures = /\|\s*([\d,]+) or more \(([\d,]+) reserved \+ the ([\d,]+) AWS keeps unreserved\)\s*\|/.exec(
    rows[0]!,
  );
  const consumers = /reserves? (?:its|their) event source's maximum concurrency \(([^)]*)\)/.exec(rows[0]!);
  expect(
    figures,
    `${DEPLOY_DOC}: "<needed> or more (<reserved> reserved + the <minimum> AWS keeps unreserved)"`,
  ).not.toBeNull();
  expect(
    consumers,
    `${DEPLOY_DOC}: "reserves its event source's maximum concurrency (<consumer> <n>, …)"`,
  ).not.toBeNull();
  return {
    needed: number(figures![1]!),
    reserved: number(figures![2]!),
    unreservedMinimum: number(figures![3]!),
    byFunction: Object.fromEntries(
      consumers![1]!.split(',').map((entry) => {
        const [, name, count] = /^\s*(.+?)\s+([\d,]+)\s*$/.exec(entry) ?? [];
        expect(name, `${DEPLOY_DOC}: "${entry}" is "<consumer> <n>"`).toBeDefined();
        return [name!.replaceAll(' ', '-'), number(count!)];
      }),
    ),
  };
}

describe('CONTRACT §22: deployable as written', () => {
  it('synthesizes prod with the documented edge context with CDK’s built-in CloudFormation validation on', () => {
    // The validator (aws-cdk-lib's WASM cfn-lint) fails the synth on a template CloudFormation would refuse: before
    // the fix, F3031 twice (WAF descriptions with characters outside their pattern). `npm run lint:cfn` (.ci/run)
    // does the same for every stage and option, and runs AWS's cfn-lint over every template.
    expect(() => synthesize(CONFIGURATIONS[2], true).app.synth()).not.toThrow();
  });

  it.each(CONFIGURATIONS)('keeps every template of $name at or below 60 % of each AWS limit', (configuration) => {
    const { stacks, flat } = templatesOf(configuration);
    const raised = 'apiAccountRateLimit' in configuration.context;
    const measurements = measureDeployment({
      stacks,
      flat,
      accountThrottle: raised ? { rateLimit: 20_000, burstLimit: 10_000 } : API_ACCOUNT_THROTTLE_DEFAULT,
    });

    expect(overHeadroom(measurements)).toEqual([]);
    // Each kind of limit was measured at least once (a measurement that finds nothing proves nothing).
    for (const subject of [
      'resources',
      'outputs',
      'template bytes',
      'inline policies',
      'environment bytes',
      'resource policy bytes',
      'conditions',
      'requests/s',
      'burst',
      'targets',
      'reserved concurrency',
    ]) {
      expect(
        measurements.filter((measurement) => measurement.subject.includes(subject)),
        subject,
      ).not.toHaveLength(0);
    }
    expect(measurements.filter((measurement) => measurement.subject.endsWith(' resources'))).toHaveLength(
      stacks.length,
    );
  });

  it.each(CONFIGURATIONS)(
    `states in ${DEPLOY_DOC} the Lambda concurrency that $name reserves and needs`,
    (configuration) => {
      const { stack, flat } = templatesOf(configuration);
      const stated = statedConcurrency(readFileSync(`${REPO_ROOT}${DEPLOY_DOC}`, 'utf8'));
      const resources = flat.Resources;
      const reservations = Object.fromEntries(
        stack.node
          .findAll()
          .filter((construct): construct is AppFunction => construct instanceof AppFunction)
          .map((fn) => [fn.name, resources[logicalId(fn.fn)]?.Properties?.ReservedConcurrentExecutions as unknown])
          .filter(([, reserved]) => reserved !== undefined),
      );
      const quota = concurrencyQuota(flat);

      // The figures the template makes: every reservation of the stack (its nested stacks' included), and the quota
      // that leaves Lambda its unreserved minimum beside them.
      expect(stated.reserved, 'reserved').toBe(quota.reserved);
      expect(stated.unreservedMinimum, 'unreserved minimum').toBe(LAMBDA_UNRESERVED_MINIMUM);
      expect(stated.needed, 'needed').toBe(quota.needed);
      expect(stated.needed).toBe(stated.reserved + stated.unreservedMinimum);
      // Each reservation named, and only those: every reserving function is ours (no CDK handler reserves), each a
      // worker reserving its queue's maximum concurrency as its row says (infra/aws/functions.ts).
      expect(stated.byFunction).toEqual(reservations);
      expect(reservations).toEqual(Object.fromEntries(QUEUES.map((queue) => [queue.consumer, queue.maxConcurrency])));
      expect(Object.values(reservations).reduce((sum: number, reserved) => sum + Number(reserved), 0)).toBe(
        quota.reserved,
      );
    },
  );

  it('leaves room in every stack for more routes and workers than the open issues add', () => {
    const { stacks } = templatesOf(CONFIGURATIONS[2]);
    const budget = Math.floor(LIMITS.resources * HEADROOM);
    const footprints = stacks.flatMap(({ template }) => functionFootprints(template));
    // The usual cost: a function that also alerts from its logs has a metric filter and an alarm more.
    const usual = (costs: number[]) =>
      costs.sort((a, b) => costs.filter((cost) => cost === b).length - costs.filter((cost) => cost === a).length)[0] ??
      0;
    const routeCost = usual(footprints.filter((footprint) => footprint.routes === 1).map((f) => f.resources));
    const workerCost = usual(footprints.filter((footprint) => footprint.queues === 1).map((f) => f.resources));

    // A function behind one route costs 9 resources (function, role, policy, log group, 2 alarms, integration,
    // permission, route); a queue worker 13 (function, role, policy, log group, 2 alarms, event source mapping, queue,
    // DLQ, 2 queue policies, 2 queue alarms). docs/architecture.md states the same figures.
    expect(routeCost).toBe(9);
    expect(workerCost).toBe(13);
    for (const { name, template } of stacks) {
      const free = budget - Object.keys(template.Resources).length;
      expect(free, `${name}: room for at least 5 more function-backed routes`).toBeGreaterThanOrEqual(5 * routeCost);
    }
  });

  it('counts a queue policy’s conditions, a role’s policies and a function’s environment as AWS does', () => {
    const template = {
      Resources: {
        Q: { Type: 'AWS::SQS::Queue', Properties: {} },
        P: {
          Type: 'AWS::SQS::QueuePolicy',
          Properties: {
            Queues: [{ Ref: 'Q' }],
            PolicyDocument: {
              Statement: [
                { Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } },
                {
                  Effect: 'Allow',
                  Condition: { ArnEquals: { 'aws:SourceArn': 'a' }, StringEquals: { x: 'y', z: 'w' } },
                },
              ],
            },
          },
        },
        R: {
          Type: 'AWS::IAM::Role',
          Properties: { Policies: [{ PolicyDocument: { Statement: [{ Action: 'a:b' }] } }] },
        },
        RP: {
          Type: 'AWS::IAM::Policy',
          Properties: { Roles: [{ Ref: 'R' }], PolicyDocument: { Statement: [{ Action: 'c:d' }] } },
        },
        F: {
          Type: 'AWS::Lambda::Function',
          Properties: { Role: { 'Fn::GetAtt': ['R', 'Arn'] }, Environment: { Variables: { QUEUE_URL: { Ref: 'Q' } } } },
        },
      },
    } as unknown as Template;

    const measured = Object.fromEntries(
      measureDeployment({ stacks: [], flat: template }).map((measurement) => [measurement.subject, measurement.value]),
    );

    expect(measured['queue policy P conditions']).toBe(4);
    expect(measured['queue policy P statements']).toBe(2);
    expect(measured['role R inline policies (characters)']).toBe(
      2 * JSON.stringify({ Statement: [{ Action: 'a:b' }] }).length,
    );
    // The queue's URL resolved as on AWS, the name generated as CloudFormation does (`<stack>-<id>-<suffix>`).
    expect(measured['function F environment bytes']).toBe(
      '{"QUEUE_URL":"https://sqs.ap-southeast-2.amazonaws.com/123456789012/WpCrm-prod-Q-XXXXXXXXXXXX"}'.length,
    );
  });
});
