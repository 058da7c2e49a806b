import { CfnOutput, Duration, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  type CfnDistribution,
  Distribution,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  PriceClass,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { CfnIPSet, CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import {
  EDGE_BLOCK_BODY,
  EDGE_RATE_RULES,
  EDGE_RETRY_AFTER_SECONDS,
  EDGE_WINDOW_SECONDS,
  type EdgeRateRule,
  NETWORK_WEBHOOK_PATH,
} from '../constructs/edge-rules.ts';
import type { EdgeConfig } from '../edge.ts';

export interface EdgeStackProps extends StackProps {
  edge: EdgeConfig;
}

const BLOCK_BODY_KEY = 'rateLimited';

/**
 * CloudFront and its AWS WAF web ACL, in us-east-1 (a CLOUDFRONT-scoped web ACL and CloudFront's certificates live
 * there). The origin is the API's regional custom domain, which answers only to CloudFront's client certificate
 * (ServiceStack: mutual TLS, execute-api endpoint off), so every request to the API passed these rules first.
 */
export class EdgeStack extends Stack {
  readonly webAcl: CfnWebACL;
  readonly distribution: Distribution;

  constructor(scope: Construct, id: string, props: EdgeStackProps) {
    super(scope, id, { ...props, env: { ...props.env, region: 'us-east-1' } });
    const { edge } = props;

    // Operators may list Meta's webhook source ranges (AS32934) here: they skip the per-address webhook limit.
    const metaSources = new CfnIPSet(this, 'MetaWebhookSources', {
      scope: 'CLOUDFRONT',
      ipAddressVersion: 'IPV4',
      addresses: [],
      description: "Meta's webhook source ranges, exempt from NetworkWebhookPerAddress (README, Architecture notes)",
    });

    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      description: 'Per-source-address rate limits in front of the wp-crm API (CONTRACT §18)',
      defaultAction: { allow: {} },
      visibilityConfig: metrics('WpCrmEdge'),
      customResponseBodies: { [BLOCK_BODY_KEY]: { contentType: 'APPLICATION_JSON', content: EDGE_BLOCK_BODY } },
      rules: [
        {
          name: 'MetaWebhookSources',
          priority: 0,
          action: { allow: {} },
          statement: {
            andStatement: {
              statements: [{ ipSetReferenceStatement: { arn: metaSources.attrArn } }, pathIs(NETWORK_WEBHOOK_PATH)],
            },
          },
          visibilityConfig: metrics('MetaWebhookSources'),
        },
        ...EDGE_RATE_RULES.map((rule, index) => rateRule(rule, index + 1)),
      ],
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'wp-crm API behind AWS WAF',
      domainNames: [edge.domainName],
      certificate: Certificate.fromCertificateArn(this, 'Certificate', edge.certificateArn),
      minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_ALL,
      webAclId: this.webAcl.attrArn,
      defaultBehavior: {
        origin: new HttpOrigin(edge.originDomainName, {
          protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
          originSslProtocols: [OriginSslPolicy.TLS_V1_2],
          // API Gateway's integration timeout is 30 s; CloudFront waits a little longer so that its answer arrives.
          readTimeout: Duration.seconds(35),
        }),
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_ALL,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        // Every viewer header but Host (API Gateway routes the origin domain by it), and CloudFront's own headers,
        // CloudFront-Viewer-Address among them: the caller's address (shared/http/edge.ts).
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      },
    });
    // CloudFront presents this client certificate to the origin (the L2 origin has no property for it yet).
    (this.distribution.node.defaultChild as CfnDistribution).addPropertyOverride(
      'DistributionConfig.Origins.0.CustomOriginConfig.OriginMtlsConfig',
      { ClientCertificateArn: edge.originClientCertificateArn },
    );

    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason: 'Integrators and Meta call from every country; no geo restriction applies to this API.',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          'Every request is logged by API Gateway (access logs) and counted by WAF metrics; CloudFront logs would repeat them.',
      },
    );

    new CfnOutput(this, 'EdgeUrl', {
      value: `https://${edge.domainName}/api/wp-crm`,
      description: 'Base URL of the API behind CloudFront and WAF: point DNS for the domain at DistributionDomainName',
    });
    new CfnOutput(this, 'DistributionDomainName', {
      value: this.distribution.distributionDomainName,
      description: 'CloudFront domain: the target of the CNAME/alias of the API domain',
    });
    new CfnOutput(this, 'WebAclArn', { value: this.webAcl.attrArn, description: 'The edge web ACL (AWS WAF)' });
    new CfnOutput(this, 'MetaWebhookSourcesArn', {
      value: metaSources.attrArn,
      description: "IP set for Meta's webhook source ranges (exempt from the per-address webhook limit)",
    });
  }
}

function metrics(name: string): CfnWebACL.VisibilityConfigProperty {
  return { cloudWatchMetricsEnabled: true, metricName: name, sampledRequestsEnabled: true };
}

function pathIs(path: string): CfnWebACL.StatementProperty {
  return {
    byteMatchStatement: {
      fieldToMatch: { uriPath: {} },
      positionalConstraint: 'EXACTLY',
      searchString: path,
      textTransformations: [{ priority: 0, type: 'NONE' }],
    },
  };
}

function methodIs(method: string): CfnWebACL.StatementProperty {
  return {
    byteMatchStatement: {
      fieldToMatch: { method: {} },
      positionalConstraint: 'EXACTLY',
      searchString: method,
      textTransformations: [{ priority: 0, type: 'NONE' }],
    },
  };
}

function scopeOf(rule: EdgeRateRule): CfnWebACL.StatementProperty | undefined {
  const parts: CfnWebACL.StatementProperty[] = [];
  if (rule.path) parts.push(pathIs(rule.path));
  if (rule.method) parts.push(methodIs(rule.method));
  if (rule.exceptPath) parts.push({ notStatement: { statement: pathIs(rule.exceptPath) } });
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : { andStatement: { statements: parts } };
}

function rateRule(rule: EdgeRateRule, priority: number): CfnWebACL.RuleProperty {
  return {
    name: rule.name,
    priority,
    action: {
      block: {
        customResponse: {
          responseCode: 429,
          customResponseBodyKey: BLOCK_BODY_KEY,
          responseHeaders: [{ name: 'Retry-After', value: String(EDGE_RETRY_AFTER_SECONDS) }],
        },
      },
    },
    statement: {
      rateBasedStatement: {
        aggregateKeyType: 'IP',
        evaluationWindowSec: EDGE_WINDOW_SECONDS,
        limit: rule.limit,
        scopeDownStatement: scopeOf(rule),
      },
    },
    visibilityConfig: metrics(rule.name),
  };
}
