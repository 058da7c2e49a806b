import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, CloudFormationValidatePlugin, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { CachePolicy, OriginRequestPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '#infra/aws/build-app';
import { REPO_ROOT } from '#infra/aws/constructs/app-function';
import {
  CERTIFICATE_EXPIRY_ALARM_DAYS,
  EDGE_RATE_RULES,
  EDGE_RETRY_AFTER_SECONDS,
  EDGE_WINDOW_SECONDS,
  NETWORK_WEBHOOK_PATH,
  wafDescription,
} from '#infra/aws/constructs/edge-rules';
import { NETWORK_WEBHOOK_THROTTLE, PUBLIC_ROUTE_THROTTLES } from '#infra/aws/constructs/service-api';
import { EDGE_CONTEXT, EDGE_OPTIONAL_CONTEXT, parseEdge } from '#infra/aws/edge';
import { EdgeStack } from '#infra/aws/stacks/edge-stack';
import type { ServiceStack } from '#infra/aws/stacks/service-stack';
import {
  ALARM_TEST_CONTEXT,
  EDGE_OWNERSHIP_TEST_CONTEXT,
  EDGE_TEST_CONTEXT,
  flatTemplate,
  type Json,
  logicalId,
  refId,
  resources,
  testApp,
} from './support.ts';

const TOKEN_PATH = '/api/wp-crm/token';
const EDGE_STACK = 'WpCrm-prod-Edge';

/**
 * AWS WAF's description pattern as CloudFormation's resource schema states it (cfn-lint E3031, CDK's built-in
 * validation F3031), written out here rather than imported so that the test does not trust the code's copy.
 */
const WAF_DESCRIPTION = /^[a-zA-Z0-9=:#@/\-,.][a-zA-Z0-9+=:#@/\-,.\s]+[a-zA-Z0-9+=:#@/\-,.]{1,256}$/;

/** The byte-match statements of a rule's scope-down, flattened: [field, value, negated]. */
function matches(statement: Json | undefined, negated = false): [string, string, boolean][] {
  if (!statement) return [];
  if (statement.AndStatement) return statement.AndStatement.Statements.flatMap((part: Json) => matches(part, negated));
  if (statement.NotStatement) return matches(statement.NotStatement.Statement, !negated);
  const match = statement.ByteMatchStatement;
  return [[Object.keys(match.FieldToMatch)[0]!, match.SearchString, negated]];
}

describe('the edge (CloudFront + AWS WAF, CONTRACT §18)', () => {
  let service: ServiceStack;
  let edge: EdgeStack;
  let serviceTemplate: Template;
  let edgeTemplate: Template;
  let webAcl: Json;
  let rules: Record<string, Json>;

  const ipSet = (id: string) => edgeTemplate.toJSON().Resources[id] as Json;

  beforeAll(() => {
    const app = testApp(EDGE_TEST_CONTEXT);
    service = buildApp(app, 'prod');
    edge = app.node.findChild(EDGE_STACK) as EdgeStack;
    serviceTemplate = flatTemplate(service);
    edgeTemplate = Template.fromStack(edge);
    webAcl = resources(edgeTemplate, 'AWS::WAFv2::WebACL')[0]![1].Properties;
    rules = Object.fromEntries((webAcl.Rules as Json[]).map((rule) => [rule.Name, rule]));
    expect(() => app.synth()).not.toThrow();
  });

  it('puts the web ACL and the distribution in us-east-1, the web ACL scoped to CloudFront', () => {
    expect(edge.region).toBe('us-east-1');
    expect(webAcl.Scope).toBe('CLOUDFRONT');
    expect(webAcl.DefaultAction).toEqual({ Allow: {} });
  });

  it('describes the web ACL and every IP set only in characters AWS WAF accepts (no quotes, parentheses or §)', () => {
    const described = [
      ...resources(edgeTemplate, 'AWS::WAFv2::WebACL'),
      ...resources(edgeTemplate, 'AWS::WAFv2::IPSet'),
    ].map(([id, resource]) => [id, resource.Properties.Description as string] as const);

    expect(described).toHaveLength(4);
    for (const [id, description] of described) expect(description, id).toMatch(WAF_DESCRIPTION);
    // The descriptions that once stopped the prod stack from deploying fail the synth now, naming the text.
    expect(() =>
      wafDescription("Meta's webhook source ranges, exempt from NetworkWebhookPerAddress (README, Architecture notes)"),
    ).toThrow(/AWS WAF refuses this description/);
    expect(() => wafDescription('Per-source-address rate limits in front of the wp-crm API (CONTRACT §18)')).toThrow();
  });

  it('limits each source address per 5 minutes on the token route, the network webhook and the rest of the API', () => {
    for (const rule of EDGE_RATE_RULES) {
      const statement = rules[rule.name]!.Statement.RateBasedStatement;
      expect(statement.AggregateKeyType, rule.name).toBe('IP');
      expect(statement.EvaluationWindowSec, rule.name).toBe(EDGE_WINDOW_SECONDS);
      expect(statement.Limit, rule.name).toBe(rule.limit);
    }
    expect(matches(rules.TokenPerAddress!.Statement.RateBasedStatement.ScopeDownStatement)).toEqual([
      ['UriPath', TOKEN_PATH, false],
      ['Method', 'POST', false],
    ]);
    expect(matches(rules.NetworkWebhookPerAddress!.Statement.RateBasedStatement.ScopeDownStatement)).toEqual([
      ['UriPath', NETWORK_WEBHOOK_PATH, false],
      ['Method', 'POST', false],
    ]);
    expect(matches(rules.ApiPerAddress!.Statement.RateBasedStatement.ScopeDownStatement)).toEqual([
      ['UriPath', NETWORK_WEBHOOK_PATH, true],
    ]);
  });

  it('tells a blocked address to retry after one evaluation window and WAF’s release delay (330 s), not before', () => {
    expect(EDGE_RETRY_AFTER_SECONDS).toBe(330);
    expect(EDGE_RETRY_AFTER_SECONDS).toBe(EDGE_WINDOW_SECONDS + 30);
    for (const rule of EDGE_RATE_RULES) {
      expect(rules[rule.name]!.Action.Block.CustomResponse, rule.name).toMatchObject({
        ResponseCode: 429,
        ResponseHeaders: [{ Name: 'Retry-After', Value: '330' }],
      });
    }
  });

  it('keeps one address below the route throttle it protects, over a 5-minute window', () => {
    const perSecond = (name: string) => EDGE_RATE_RULES.find((rule) => rule.name === name)!.limit / EDGE_WINDOW_SECONDS;

    expect(perSecond('TokenPerAddress')).toBeLessThan(PUBLIC_ROUTE_THROTTLES[`POST ${TOKEN_PATH}`]!.rateLimit);
    expect(perSecond('NetworkWebhookPerAddress')).toBeLessThan(NETWORK_WEBHOOK_THROTTLE.rateLimit);
  });

  it("answers a blocked address with the contract's RATE_LIMITED problem fields", () => {
    const body = JSON.parse(webAcl.CustomResponseBodies.rateLimited.Content);

    expect(webAcl.CustomResponseBodies.rateLimited.ContentType).toBe('APPLICATION_JSON');
    expect(body).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
  });

  it("lets Meta's listed IPv4 and IPv6 source ranges past the per-address webhook limits, and nothing else", () => {
    const allow = rules.MetaWebhookSources!;
    const [sources, path] = allow.Statement.AndStatement.Statements as Json[];
    const sets = (sources!.OrStatement.Statements as Json[]).map((statement) =>
      refId(statement.IPSetReferenceStatement.Arn),
    );

    expect(allow.Action).toEqual({ Allow: {} });
    expect(Object.values(rules).filter((rule) => rule.Priority <= allow.Priority)).toEqual([allow]);
    expect(matches(path)).toEqual([['UriPath', NETWORK_WEBHOOK_PATH, false]]);
    expect(sets).toEqual(['MetaWebhookSources', 'MetaWebhookSourcesIpv6']);
    expect(sets.map((id) => ipSet(id).Properties.IPAddressVersion)).toEqual(['IPV4', 'IPV6']);
    expect(sets.map((id) => ipSet(id).Properties.Addresses)).toEqual([[], []]);
    edgeTemplate.hasOutput('MetaWebhookSourcesArn', { Value: { 'Fn::GetAtt': ['MetaWebhookSources', 'Arn'] } });
    edgeTemplate.hasOutput('MetaWebhookSourcesIpv6Arn', { Value: { 'Fn::GetAtt': ['MetaWebhookSourcesIpv6', 'Arn'] } });
  });

  it('serves IPv4 only: no AAAA answer, and any IPv6 source refused with 403 before a rate rule counts it', () => {
    const distribution = resources(edgeTemplate, 'AWS::CloudFront::Distribution')[0]![1].Properties.DistributionConfig;
    const refuse = rules.Ipv6NotServed!;
    const everyIpv6 = ipSet(refId(refuse.Statement.IPSetReferenceStatement.Arn)).Properties;
    const rateRules = Object.values(rules).filter((rule) => rule.Statement.RateBasedStatement);

    // A rate rule counts each IPv6 address apart, and a client holds a /64 of them (docs/deployment.md).
    expect(distribution.IPV6Enabled).toBe(false);
    expect(everyIpv6).toMatchObject({ IPAddressVersion: 'IPV6', Addresses: ['::/1', '8000::/1'] });
    expect(refuse.Action.Block.CustomResponse).toEqual({ ResponseCode: 403, CustomResponseBodyKey: 'ipv6NotServed' });
    expect(JSON.parse(webAcl.CustomResponseBodies.ipv6NotServed.Content)).toMatchObject({
      status: 403,
      code: 'FORBIDDEN',
    });
    expect(refuse.Priority).toBeGreaterThan(rules.MetaWebhookSources!.Priority);
    expect(rateRules.every((rule) => rule.Priority > refuse.Priority)).toBe(true);
    expect(rateRules.every((rule) => rule.Statement.RateBasedStatement.AggregateKeyType === 'IP')).toBe(true);
  });

  it('logs what the web ACL blocks to an aws-waf-logs- group with a retention, secrets redacted', () => {
    const [, logging] = resources(edgeTemplate, 'AWS::WAFv2::LoggingConfiguration')[0]!;
    const [logGroupId, logGroup] = resources(edgeTemplate, 'AWS::Logs::LogGroup')[0]!;
    const destination = logging.Properties.LogDestinationConfigs[0]['Fn::Join'][1] as unknown[];

    expect(logging.Properties.ResourceArn).toEqual({ 'Fn::GetAtt': [edge.getLogicalId(edge.webAcl), 'Arn'] });
    // The log group's ARN as WAF takes it: `…:log-group:<name>`, without the `:*` of its Arn attribute.
    expect(destination.at(-2)).toBe(':log-group:');
    expect(destination.at(-1)).toEqual({ Ref: logGroupId });
    expect(logGroup.Properties.LogGroupName['Fn::Join'][1][0]).toMatch(/^aws-waf-logs-/);
    expect(logGroup.Properties.RetentionInDays).toBeGreaterThan(0);
    expect(logging.Properties.RedactedFields).toEqual([
      { SingleHeader: { Name: 'authorization' } },
      { QueryString: {} },
    ]);
    expect(logging.Properties.LoggingFilter).toEqual({
      DefaultBehavior: 'DROP',
      Filters: [{ Behavior: 'KEEP', Requirement: 'MEETS_ANY', Conditions: [{ ActionCondition: { Action: 'BLOCK' } }] }],
    });
    edgeTemplate.hasOutput('WafLogGroupName', { Value: { Ref: logGroupId } });
  });

  it('keeps bearer tokens, the verify token and bodies out of sampled requests as well as logs', () => {
    expect(webAcl.DataProtectionConfig.DataProtections).toEqual([
      { Action: 'SUBSTITUTION', Field: { FieldType: 'SINGLE_HEADER', FieldKeys: ['authorization'] } },
      { Action: 'SUBSTITUTION', Field: { FieldType: 'SINGLE_QUERY_ARGUMENT', FieldKeys: ['hub.verify_token'] } },
      { Action: 'SUBSTITUTION', Field: { FieldType: 'BODY' } },
    ]);
  });

  it('alarms on the edge topic when fewer than 30 days are left on the client or the viewer certificate', () => {
    const alarms = resources(edgeTemplate, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
    const [topicId] = resources(edgeTemplate, 'AWS::SNS::Topic')[0]!;
    const watched = alarms.map((alarm) => alarm.Dimensions[0].Value);

    expect(CERTIFICATE_EXPIRY_ALARM_DAYS).toBe(30);
    expect(watched).toEqual([EDGE_TEST_CONTEXT.edgeOriginClientCertificateArn, EDGE_TEST_CONTEXT.edgeCertificateArn]);
    for (const alarm of alarms) {
      expect(alarm).toMatchObject({
        Namespace: 'AWS/CertificateManager',
        MetricName: 'DaysToExpiry',
        Statistic: 'Minimum',
        Period: 86_400,
        Threshold: 30,
        ComparisonOperator: 'LessThanThreshold',
        EvaluationPeriods: 1,
        // ACM stops publishing the metric once the certificate has expired.
        TreatMissingData: 'breaching',
        AlarmActions: [{ Ref: topicId }],
      });
      expect(alarm.Dimensions).toEqual([{ Name: 'CertificateArn', Value: expect.any(String) }]);
    }
    edgeTemplate.hasOutput('EdgeAlarmTopicArn', { Value: { Ref: topicId } });
  });

  it('subscribes the operator’s email and HTTPS endpoint to both alarm topics, when given, and nothing otherwise', () => {
    const app = testApp({ ...EDGE_TEST_CONTEXT, ...ALARM_TEST_CONTEXT });
    const stack = buildApp(app, 'prod');
    const edgeStack = app.node.findChild(EDGE_STACK) as EdgeStack;
    const topics = [
      { template: flatTemplate(stack), topic: logicalId(stack.alarmTopic) },
      { template: Template.fromStack(edgeStack), topic: logicalId(edgeStack.alarmTopic) },
    ];

    for (const { template, topic } of topics) {
      const subscriptions = resources(template, 'AWS::SNS::Subscription').map(([, subscription]) => [
        subscription.Properties.Protocol,
        subscription.Properties.Endpoint,
        refId(subscription.Properties.TopicArn),
      ]);
      expect(subscriptions).toEqual([
        ['email', ALARM_TEST_CONTEXT.alarmEmail, topic],
        ['https', ALARM_TEST_CONTEXT.alarmHttpsEndpoint, topic],
      ]);
    }
    edgeTemplate.resourceCountIs('AWS::SNS::Subscription', 0);
    serviceTemplate.resourceCountIs('AWS::SNS::Subscription', 0);
    expect(() => app.synth()).not.toThrow();
  });

  it("encrypts the edge topic with a rotated key that CloudWatch may use, and lets only this account's alarms publish", () => {
    const [topicId, topic] = resources(edgeTemplate, 'AWS::SNS::Topic')[0]!;
    const [keyId, key] = resources(edgeTemplate, 'AWS::KMS::Key')[0]!;
    const policy = resources(edgeTemplate, 'AWS::SNS::TopicPolicy')[0]![1].Properties;
    const statements = policy.PolicyDocument.Statement as Json[];
    const keyStatements = key.Properties.KeyPolicy.Statement as Json[];
    const fromCloudWatch = (statement: Json) =>
      statement.Effect === 'Allow' && statement.Principal?.Service === 'cloudwatch.amazonaws.com';
    const fromOwnAlarms = {
      StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
      ArnLike: {
        'aws:SourceArn': { 'Fn::Join': ['', ['arn:aws:cloudwatch:us-east-1:', { Ref: 'AWS::AccountId' }, ':alarm:*']] },
      },
    };

    expect(topic.Properties.KmsMasterKeyId).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(policy.Topics).toEqual([{ Ref: topicId }]);
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
    expect(statements.filter(fromCloudWatch)).toEqual([
      expect.objectContaining({ Action: 'sns:Publish', Resource: { Ref: topicId }, Condition: fromOwnAlarms }),
    ]);
    expect(keyStatements.filter(fromCloudWatch)).toEqual([
      expect.objectContaining({ Action: ['kms:Decrypt', 'kms:GenerateDataKey*'], Condition: fromOwnAlarms }),
    ]);
  });

  it("associates the web ACL with the distribution, which calls the origin domain over TLS 1.2 with CloudFront's client certificate", () => {
    const distribution = resources(edgeTemplate, 'AWS::CloudFront::Distribution')[0]![1].Properties.DistributionConfig;
    const origin = (distribution.Origins as Json[])[0]!;

    expect(distribution.WebACLId).toEqual({ 'Fn::GetAtt': [edge.getLogicalId(edge.webAcl), 'Arn'] });
    expect(distribution.Aliases).toEqual([EDGE_TEST_CONTEXT.edgeDomainName]);
    expect(distribution.ViewerCertificate).toMatchObject({
      AcmCertificateArn: EDGE_TEST_CONTEXT.edgeCertificateArn,
      MinimumProtocolVersion: 'TLSv1.2_2021',
    });
    expect(origin.DomainName).toBe(EDGE_TEST_CONTEXT.edgeOriginDomainName);
    expect(origin.CustomOriginConfig).toMatchObject({
      OriginProtocolPolicy: 'https-only',
      OriginSSLProtocols: ['TLSv1.2'],
      OriginMtlsConfig: { ClientCertificateArn: EDGE_TEST_CONTEXT.edgeOriginClientCertificateArn },
    });
    expect(distribution.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('https-only');
    expect(distribution.DefaultCacheBehavior.AllowedMethods).toEqual(
      expect.arrayContaining(['POST', 'PATCH', 'DELETE']),
    );
  });

  it("forwards every viewer header but Host, with CloudFront's own (the viewer address among them), and caches nothing", () => {
    const behavior = resources(edgeTemplate, 'AWS::CloudFront::Distribution')[0]![1].Properties.DistributionConfig
      .DefaultCacheBehavior;

    expect(behavior.OriginRequestPolicyId).toBe(
      OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER.originRequestPolicyId,
    );
    expect(behavior.CachePolicyId).toBe(CachePolicy.CACHING_DISABLED.cachePolicyId);
  });

  it('closes every other way in: execute-api endpoint off, origin domain requiring mutual TLS', () => {
    serviceTemplate.hasResourceProperties('AWS::ApiGatewayV2::Api', { DisableExecuteApiEndpoint: true });
    serviceTemplate.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainName: EDGE_TEST_CONTEXT.edgeOriginDomainName,
      DomainNameConfigurations: [
        Match.objectLike({ CertificateArn: EDGE_TEST_CONTEXT.edgeOriginCertificateArn, SecurityPolicy: 'TLS_1_2' }),
      ],
      MutualTlsAuthentication: { TruststoreUri: EDGE_TEST_CONTEXT.edgeOriginTruststoreUri },
    });
    serviceTemplate.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 1);
    // A public certificate ACM issued needs no proof of ownership beside it.
    const [, domain] = resources(serviceTemplate, 'AWS::ApiGatewayV2::DomainName')[0]!;
    expect(domain.Properties.DomainNameConfigurations[0].OwnershipVerificationCertificateArn).toBeUndefined();
  });

  it("gives the origin domain the operator's ownership certificate, for an imported or private server certificate", () => {
    const app = testApp({ ...EDGE_TEST_CONTEXT, ...EDGE_OWNERSHIP_TEST_CONTEXT });
    const stack = buildApp(app, 'prod');
    const template = flatTemplate(stack);
    const ownership = EDGE_OWNERSHIP_TEST_CONTEXT.edgeOriginOwnershipCertificateArn;

    template.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainName: EDGE_TEST_CONTEXT.edgeOriginDomainName,
      DomainNameConfigurations: [
        Match.objectLike({
          CertificateArn: EDGE_TEST_CONTEXT.edgeOriginCertificateArn,
          OwnershipVerificationCertificateArn: ownership,
        }),
      ],
      MutualTlsAuthentication: { TruststoreUri: EDGE_TEST_CONTEXT.edgeOriginTruststoreUri },
    });
    // ACM renews it; if the renewal is stuck, the operators hear of it before API Gateway locks the domain.
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/CertificateManager',
      MetricName: 'DaysToExpiry',
      Dimensions: [{ Name: 'CertificateArn', Value: ownership }],
      Threshold: CERTIFICATE_EXPIRY_ALARM_DAYS,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
      AlarmActions: [{ Ref: logicalId(stack.alarmTopic) }],
    });
    expect(() => app.synth()).not.toThrow();
  });

  it("tells the HTTP functions the edge's origin, and reports the edge's URL as ApiUrl", () => {
    const token = service.functions.get('issue-token')!;
    const env = serviceTemplate.toJSON().Resources[logicalId(token.fn)].Properties.Environment.Variables;

    expect(env.WPCRM_EDGE_ORIGIN).toBe('https://api.example.com');
    serviceTemplate.hasOutput('ApiUrl', { Value: 'https://api.example.com/api/wp-crm' });
  });
});

describe('the edge stack as CloudFormation and cfn-lint see it (CONTRACT §22)', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'wpcrm-edge-'));
  // The assembly holds the template even when validation fails the synth, so that cfn-lint still sees it.
  const templatePath = join(outdir, `${EDGE_STACK}.template.json`);
  const cfnLint = spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' });
  const cfnLintMissing = (cfnLint.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
  const cfnLintRequired = process.env.CFN_LINT_REQUIRED === '1';
  let synthError: unknown;

  beforeAll(() => {
    const { context } = JSON.parse(readFileSync(`${REPO_ROOT}cdk.json`, 'utf8')) as { context: Json };
    const app = new App({
      outdir,
      context: { ...context, 'aws:cdk:bundling-stacks': [], ...EDGE_TEST_CONTEXT },
      builtinCloudFormationValidation: true,
    });
    // The infra tests run with CDK_VALIDATION=false (vitest.config.ts), which turns the built-in plugin off; an
    // explicitly registered one runs whatever the environment says. cdk-nag, as buildApp adds it, runs beside it.
    Validations.of(app).addPlugins(new CloudFormationValidatePlugin(), new AwsSolutionsChecks(app));
    new EdgeStack(app, EDGE_STACK, { edge: parseEdge(app.node, 'prod')!, stage: 'prod' });
    try {
      app.synth();
    } catch (error) {
      synthError = error;
    }
  });

  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it("synthesizes with CDK's built-in CloudFormation validation and cdk-nag on, with no violation", () => {
    // Every violation of a failed synth, from the report CDK writes into the assembly, names the rule and construct.
    const violations = (): string[] => {
      const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as Json;
      return (report.pluginReports as Json[]).flatMap((plugin) =>
        (plugin.violations as Json[]).map(
          (violation) =>
            `${plugin.pluginName} ${violation.ruleName}: ${violation.description} at ${(
              violation.violatingConstructs as Json[]
            )
              .map((construct) => construct.constructPath)
              .join(', ')}`,
        ),
      );
    };

    expect(synthError === undefined ? [] : violations()).toEqual([]);
    expect(synthError).toBeUndefined();
  });

  it.skipIf(cfnLintMissing && !cfnLintRequired)(
    "passes AWS's cfn-lint with no error (skipped when cfn-lint is not on PATH, unless CFN_LINT_REQUIRED=1)",
    () => {
      if (cfnLintMissing) {
        throw new Error('CFN_LINT_REQUIRED=1 but cfn-lint is not on PATH: install it (pip install cfn-lint)');
      }
      expect(existsSync(templatePath), templatePath).toBe(true);
      const run = spawnSync('cfn-lint', ['--format', 'json', templatePath], { encoding: 'utf8' });
      const findings = JSON.parse(run.stdout || '[]') as Json[];
      const errors = findings
        .filter((finding) => finding.Level === 'Error')
        .map((finding) => `${finding.Rule.Id} ${finding.Message} (${finding.Location.Path.join('.')})`);

      expect(run.error).toBeUndefined();
      expect(errors).toEqual([]);
      // cfn-lint's exit code has bit 2 set for errors and 1 for a failure of its own.
      expect(run.status! & 3, run.stderr).toBe(0);
    },
    60_000,
  );
});

describe('EdgeStack removal policies', () => {
  const stateful = (stage?: 'dev' | 'prod') => {
    const app = testApp(EDGE_TEST_CONTEXT);
    const template = Template.fromStack(new EdgeStack(app, EDGE_STACK, { edge: parseEdge(app.node, 'prod')!, stage }));
    return ['AWS::Logs::LogGroup', 'AWS::KMS::Key'].map((type) => resources(template, type)[0]![1].DeletionPolicy);
  };

  it('retains the WAF log group and the alarm key unless the stage is dev', () => {
    expect(stateful()).toEqual(['Retain', 'Retain']);
    expect(stateful('prod')).toEqual(['Retain', 'Retain']);
    expect(stateful('dev')).toEqual(['Delete', 'Delete']);
  });
});

describe('parseEdge', () => {
  const app = (context: Record<string, string>) => testApp(context).node;

  it('refuses prod without an edge, and accepts dev without one', () => {
    expect(() => parseEdge(app({}), 'prod')).toThrow(/stage prod needs the edge/);
    expect(parseEdge(app({}), 'dev')).toBeUndefined();
  });

  it('refuses a partial edge or certificates outside us-east-1, naming the keys', () => {
    const partial = { [EDGE_CONTEXT.domainName]: 'api.example.com' };
    const wrongRegion = {
      ...EDGE_TEST_CONTEXT,
      edgeCertificateArn: EDGE_TEST_CONTEXT.edgeOriginCertificateArn,
    };

    expect(() => parseEdge(app(partial), 'dev')).toThrow(/edgeCertificateArn/);
    expect(() => parseEdge(app(wrongRegion), 'dev')).toThrow(
      /edgeCertificateArn must be an ACM certificate ARN in us-east-1/,
    );
  });

  it('takes an ownership certificate in the origin certificate’s region, other than it, and only with the edge', () => {
    const key = EDGE_OPTIONAL_CONTEXT.originOwnershipCertificateArn;
    const withOwnership = (value: string) => parseEdge(app({ ...EDGE_TEST_CONTEXT, [key]: value }), 'prod');

    expect(key).toBe('edgeOriginOwnershipCertificateArn');
    expect(parseEdge(app(EDGE_TEST_CONTEXT), 'prod')?.originOwnershipCertificateArn).toBeUndefined();
    const ownership = EDGE_OWNERSHIP_TEST_CONTEXT.edgeOriginOwnershipCertificateArn;
    expect(withOwnership(ownership)?.originOwnershipCertificateArn).toBe(ownership);
    expect(() => withOwnership('origin-ownership')).toThrow(
      /edgeOriginOwnershipCertificateArn must be an ACM certificate ARN in the region of edgeOriginCertificateArn/,
    );
    // us-east-1, where the edge's own certificates are, is not the origin's region.
    expect(() => withOwnership(EDGE_TEST_CONTEXT.edgeCertificateArn)).toThrow(
      /in the region of edgeOriginCertificateArn/,
    );
    expect(() => withOwnership(EDGE_TEST_CONTEXT.edgeOriginCertificateArn)).toThrow(
      /edgeOriginOwnershipCertificateArn must be another certificate than edgeOriginCertificateArn/,
    );
    expect(() => parseEdge(app(EDGE_OWNERSHIP_TEST_CONTEXT), 'dev')).toThrow(
      /edgeOriginOwnershipCertificateArn belongs to the edge's origin domain: set -c edgeDomainName/,
    );
  });

  it('adds no edge resources to a dev stack without an edge', () => {
    const template = flatTemplate(buildApp(testApp(), 'dev'));

    template.resourceCountIs('AWS::ApiGatewayV2::DomainName', 0);
    expect(resources(template, 'AWS::ApiGatewayV2::Api')[0]![1].Properties.DisableExecuteApiEndpoint ?? false).toBe(
      false,
    );
  });
});
