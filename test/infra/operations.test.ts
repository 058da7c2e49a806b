import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '#infra/aws/build-app';
import { QUEUES } from '#infra/aws/functions';
import type { ServiceStack } from '#infra/aws/stacks/service-stack';
import { BUSINESS_METRICS, METRICS_NAMESPACE } from '#shared/observability/metric-names';
import { asArray, flatTemplate, logicalId, type Statement, statements, testApp } from './support.ts';

/** The operators' view of the deployed stack (CONTRACT §17): dashboard, its output, metrics, report expiry. */
describe('ServiceStack operations', () => {
  let stack: ServiceStack;
  let template: Template;
  let body: string;

  beforeAll(() => {
    stack = buildApp(testApp(), 'dev');
    template = flatTemplate(stack);
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard')) as {
      Properties: { DashboardBody: unknown };
    }[];
    body = JSON.stringify(dashboard!.Properties.DashboardBody);
  });

  it('has one CloudWatch dashboard and outputs its console address as DashboardUrl', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    template.hasOutput('DashboardUrl', {
      Description: Match.stringLikeRegexp('dashboard'),
      Value: { 'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('#dashboards:name=')])] },
    });
  });

  it('charts the API, every function, every queue and DLQ, DynamoDB throttles and the business counts', () => {
    for (const metric of ['Count', '4xx', '5xx', 'Latency']) expect(body).toContain(`"AWS/ApiGateway\\",\\"${metric}`);
    for (const metric of ['Errors', 'Throttles', 'Duration']) expect(body).toContain(`"AWS/Lambda\\",\\"${metric}`);
    for (const metric of ['ApproximateAgeOfOldestMessage', 'ApproximateNumberOfMessagesVisible'])
      expect(body).toContain(`"AWS/SQS\\",\\"${metric}`);
    for (const metric of ['ReadThrottleEvents', 'WriteThrottleEvents'])
      expect(body).toContain(`"AWS/DynamoDB\\",\\"${metric}`);
    for (const [name, fn] of stack.functions) expect(body, name).toContain(logicalId(fn.fn));
    for (const def of QUEUES) expect(body, def.name).toContain(`\\"label\\":\\"${def.name}\\"`);
  });

  it('reads the business counts from the namespace the functions emit to', () => {
    for (const name of Object.values(BUSINESS_METRICS)) {
      expect(body).toContain(`"${METRICS_NAMESPACE}\\",\\"${name}\\",\\"service\\",\\"wp-crm\\"`);
    }
  });

  it('derives the reports bucket’s expiration rule from REPORT_RETENTION_SECONDS, a day on top', () => {
    const oneDay = flatTemplate(buildApp(testApp({ reportRetentionSeconds: '86400' }), 'dev'));

    oneDay.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ ExpirationInDays: 2 })]) },
    });
    template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ ExpirationInDays: 8 })]) },
    });
    expect(() => buildApp(testApp({ reportRetentionSeconds: 'week' }), 'dev')).toThrow(
      /-c reportRetentionSeconds="week": REPORT_RETENTION_SECONDS must be a non-negative integer/,
    );
  });

  it("lets no function role delete objects: report files go with their organisation's credentials, under its prefix", () => {
    const deletes = (statement: Statement) =>
      asArray(statement.Action).some((action) => String(action).startsWith('s3:Delete'));
    const functionRoles = new Set([...stack.functions.values()].map((fn) => logicalId(fn.role)));
    const tenant = template.toJSON().Resources[logicalId(stack.tenantAccess.role)].Properties;

    expect(
      statements(template).filter(
        ({ roles, statement }) => deletes(statement) && roles.some((role) => functionRoles.has(role)),
      ),
    ).toEqual([]);
    const [files] = (tenant.Policies[0].PolicyDocument.Statement as Statement[]).filter(deletes);
    expect(JSON.stringify(files!.Resource)).toMatch(/"\/org\/\$\{aws:PrincipalTag\/org\}\/\*"/);
  });
});
