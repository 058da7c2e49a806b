import { describe, expect, it } from 'vitest';
import { authorize, type PolicyDocument } from '#infra/cdk-local/iam/policy';
import { lambdaServiceCalls } from '#infra/cdk-local/lambda-logs';

const ACCOUNT = '000000000000';
const SESSION = `arn:aws:sts::${ACCOUNT}:assumed-role/S-FnServiceRole/wp-crm-dev-create-group`;
const group = (name: string) => `arn:aws:logs:eu-west-1:${ACCOUNT}:log-group:${name}:*`;
const allowLogsOn = (resource: string): PolicyDocument => ({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: resource }],
});

describe('the calls Lambda makes with a function role (start:cdk, issue 19.2)', () => {
  const calls = lambdaServiceCalls({
    region: 'eu-west-1',
    account: ACCOUNT,
    logGroup: '/aws/lambda/create-group',
    tracing: false,
    now: new Date('2026-11-24T10:00:00Z'),
  });

  it("writes logs to a stream of the function's group, named as Lambda names it, by the stream's ARN", () => {
    expect(calls.map((call) => call.action)).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
    for (const { resource } of calls) {
      expect(resource).toMatch(
        /^arn:aws:logs:eu-west-1:000000000000:log-group:\/aws\/lambda\/create-group:log-stream:2026\/11\/24\/\[\$LATEST\][0-9a-f]{32}$/,
      );
    }
  });

  it("is allowed by a grant on the function's log group and refused by a grant on another", () => {
    const decide = (grant: string) =>
      calls.map(
        ({ action, resource }) =>
          authorize({
            principalArn: SESSION,
            identityPolicies: [allowLogsOn(grant)],
            request: { action, resource, context: {} },
          }).decision,
      );

    expect(decide(group('/aws/lambda/create-group'))).toEqual(['allow', 'allow']);
    expect(decide(group('/aws/lambda/other'))).toEqual(['deny', 'deny']);
  });

  it('adds the X-Ray calls when tracing is active', () => {
    const traced = lambdaServiceCalls({ region: 'eu-west-1', account: ACCOUNT, logGroup: 'g', tracing: true });

    expect(traced.map((call) => call.action)).toContain('xray:PutTraceSegments');
  });
});
