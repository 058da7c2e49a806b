import type { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { buildApp } from '#infra/aws/build-app';
import { API_ACCOUNT_THROTTLE_DEFAULT } from '#infra/aws/constructs/service-api';
import { functionFootprints, HEADROOM, LIMITS, measureDeployment, overHeadroom } from '#infra/aws/limits';
import type { Template } from '#infra/cdk-local/template';
import { EDGE_TEST_CONTEXT, flatTemplate, stackTemplates, testApp } from './support.ts';

/** Every documented stage and option (docs/deployment.md), as `cdk deploy` would receive them. */
const CONFIGURATIONS = [
  { name: 'dev', stage: 'dev', context: {} },
  { name: 'dev with the edge', stage: 'dev', context: EDGE_TEST_CONTEXT },
  { name: 'prod with the edge', stage: 'prod', context: EDGE_TEST_CONTEXT },
  {
    name: 'prod with the edge and a raised API Gateway quota',
    stage: 'prod',
    context: { ...EDGE_TEST_CONTEXT, apiAccountRateLimit: '20000', apiAccountBurstLimit: '10000' },
  },
] as const;

function synthesize(configuration: (typeof CONFIGURATIONS)[number], validate = false) {
  const app: App = testApp({ ...configuration.context }, { validate });
  const stack = buildApp(app, configuration.stage);
  return { app, stack, stacks: stackTemplates(app), flat: flatTemplate(stack).toJSON() as Template };
}

describe('CONTRACT §22: deployable as written', () => {
  it('synthesizes prod with the documented edge context with CDK’s built-in CloudFormation validation on', () => {
    // The validator (aws-cdk-lib's WASM cfn-lint) fails the synth on a template CloudFormation would refuse: before
    // the fix, F3031 twice (WAF descriptions with characters outside their pattern). `npm run lint:cfn` (.ci/run)
    // does the same for every stage and option, and runs AWS's cfn-lint over every template.
    expect(() => synthesize(CONFIGURATIONS[2], true).app.synth()).not.toThrow();
  });

  it.each(CONFIGURATIONS)('keeps every template of $name at or below 60 % of each AWS limit', (configuration) => {
    const { stacks, flat } = synthesize(configuration);
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

  it('leaves room in every stack for more routes and workers than the open issues add', () => {
    const { stacks } = synthesize(CONFIGURATIONS[2]);
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
