import { Match, Template } from 'aws-cdk-lib/assertions';
import { CachePolicy, OriginRequestPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '#infra/aws/build-app';
import { EDGE_RATE_RULES, EDGE_WINDOW_SECONDS, NETWORK_WEBHOOK_PATH } from '#infra/aws/constructs/edge-rules';
import { NETWORK_WEBHOOK_THROTTLE, PUBLIC_ROUTE_THROTTLES } from '#infra/aws/constructs/service-api';
import { EDGE_CONTEXT, parseEdge } from '#infra/aws/edge';
import type { EdgeStack } from '#infra/aws/stacks/edge-stack';
import type { ServiceStack } from '#infra/aws/stacks/service-stack';
import { EDGE_TEST_CONTEXT, type Json, logicalId, resources, testApp } from './support.ts';

const TOKEN_PATH = '/api/wp-crm/token';

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

  beforeAll(() => {
    const app = testApp(EDGE_TEST_CONTEXT);
    service = buildApp(app, 'prod');
    edge = app.node.findChild('WpCrm-prod-Edge') as EdgeStack;
    serviceTemplate = Template.fromStack(service);
    edgeTemplate = Template.fromStack(edge);
    webAcl = resources(edgeTemplate, 'AWS::WAFv2::WebACL')[0]![1].Properties;
    expect(() => app.synth()).not.toThrow();
  });

  it('puts the web ACL and the distribution in us-east-1, the web ACL scoped to CloudFront', () => {
    expect(edge.region).toBe('us-east-1');
    expect(webAcl.Scope).toBe('CLOUDFRONT');
    expect(webAcl.DefaultAction).toEqual({ Allow: {} });
  });

  it('limits each source address per 5 minutes on the token route, the network webhook and the rest of the API', () => {
    const rules = Object.fromEntries(
      (webAcl.Rules as Json[]).filter((rule) => rule.Statement.RateBasedStatement).map((rule) => [rule.Name, rule]),
    );

    for (const rule of EDGE_RATE_RULES) {
      const statement = rules[rule.name].Statement.RateBasedStatement;
      expect(statement.AggregateKeyType, rule.name).toBe('IP');
      expect(statement.EvaluationWindowSec, rule.name).toBe(EDGE_WINDOW_SECONDS);
      expect(statement.Limit, rule.name).toBe(rule.limit);
      expect(rules[rule.name].Action.Block.CustomResponse).toMatchObject({
        ResponseCode: 429,
        ResponseHeaders: [{ Name: 'Retry-After', Value: '60' }],
      });
    }
    expect(matches(rules.TokenPerAddress.Statement.RateBasedStatement.ScopeDownStatement)).toEqual([
      ['UriPath', TOKEN_PATH, false],
      ['Method', 'POST', false],
    ]);
    expect(matches(rules.NetworkWebhookPerAddress.Statement.RateBasedStatement.ScopeDownStatement)).toEqual([
      ['UriPath', NETWORK_WEBHOOK_PATH, false],
      ['Method', 'POST', false],
    ]);
    expect(matches(rules.ApiPerAddress.Statement.RateBasedStatement.ScopeDownStatement)).toEqual([
      ['UriPath', NETWORK_WEBHOOK_PATH, true],
    ]);
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

  it("lets Meta's listed source ranges past the per-address webhook limit, and nothing else", () => {
    const allow = (webAcl.Rules as Json[]).find((rule) => rule.Name === 'MetaWebhookSources')!;
    const rateRules = (webAcl.Rules as Json[]).filter((rule) => rule.Statement.RateBasedStatement);

    expect(allow.Action).toEqual({ Allow: {} });
    expect(rateRules.every((rule) => rule.Priority > allow.Priority)).toBe(true);
    expect(matches(allow.Statement.AndStatement.Statements[1])).toEqual([['UriPath', NETWORK_WEBHOOK_PATH, false]]);
    expect(allow.Statement.AndStatement.Statements[0].IPSetReferenceStatement.Arn).toEqual({
      'Fn::GetAtt': [resources(edgeTemplate, 'AWS::WAFv2::IPSet')[0]![0], 'Arn'],
    });
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
  });

  it("tells the HTTP functions the edge's origin, and reports the edge's URL as ApiUrl", () => {
    const token = service.functions.get('issue-token')!;
    const env = serviceTemplate.toJSON().Resources[logicalId(token.fn)].Properties.Environment.Variables;

    expect(env.WPCRM_EDGE_ORIGIN).toBe('https://api.example.com');
    serviceTemplate.hasOutput('ApiUrl', { Value: 'https://api.example.com/api/wp-crm' });
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

  it('adds no edge resources to a dev stack without an edge', () => {
    const template = Template.fromStack(buildApp(testApp(), 'dev'));

    template.resourceCountIs('AWS::ApiGatewayV2::DomainName', 0);
    expect(resources(template, 'AWS::ApiGatewayV2::Api')[0]![1].Properties.DisableExecuteApiEndpoint ?? false).toBe(
      false,
    );
  });
});
