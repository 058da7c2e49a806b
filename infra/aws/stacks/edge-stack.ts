import {
  ArnFormat,
  Aws,
  CfnOutput,
  Duration,
  Fn,
  RemovalPolicy,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import { Certificate, type ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
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
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { CfnIPSet, CfnLoggingConfiguration, CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { type AlarmEndpoints, subscribeAlarmEndpoints } from '../alarm-endpoints.ts';
import {
  ALL_IPV6,
  CERTIFICATE_EXPIRY_ALARM_DAYS,
  EDGE_BLOCK_BODY,
  EDGE_IPV6_BODY,
  EDGE_RATE_RULES,
  EDGE_RETRY_AFTER_SECONDS,
  EDGE_SECRET_HEADERS,
  EDGE_SECRET_QUERY_ARGUMENTS,
  EDGE_WINDOW_SECONDS,
  type EdgeRateRule,
  NETWORK_WEBHOOK_PATH,
  wafDescription,
} from '../constructs/edge-rules.ts';
import { denyGrantsButForAwsResources } from '../constructs/kms.ts';
import type { EdgeConfig } from '../edge.ts';
import { removalPolicyFor, type Stage } from '../stage.ts';

export interface EdgeStackProps extends StackProps {
  edge: EdgeConfig;
  /** Decides whether the WAF log group and the alarm topic's key outlive the stack: only dev drops them. */
  stage?: Stage;
  /**
   * The operator's endpoints that the edge's alarm topic notifies (`-c alarmEmail=… -c alarmHttpsEndpoint=…`).
   * @default - none: the operator subscribes to EdgeAlarmTopicArn by hand
   */
  alarmEndpoints?: AlarmEndpoints;
}

/** The web ACL's IP sets (EdgeStack.#ipSets). */
interface IpSets {
  metaSources: CfnIPSet;
  metaSourcesIpv6: CfnIPSet;
  ipv6Sources: CfnIPSet;
}

const BLOCK_BODY_KEY = 'rateLimited';
const IPV6_BODY_KEY = 'ipv6NotServed';

/**
 * CloudFront and its AWS WAF web ACL, in us-east-1 (a CLOUDFRONT-scoped web ACL and CloudFront's certificates live
 * there). The origin is the API's regional custom domain, which answers only to CloudFront's client certificate
 * (ServiceStack: mutual TLS, execute-api endpoint off), so every request to the API passed these rules first.
 * The distribution serves IPv4 only (edge-rules.ts, ALL_IPV6, has why). The stack logs what the web ACL blocks and
 * alarms before the edge's us-east-1 certificates expire, on a topic of its own in us-east-1: the service's
 * AlarmTopicArn, in the API's region, and its key admit only that region's alarms (ServiceAlarms).
 */
export class EdgeStack extends Stack {
  readonly webAcl: CfnWebACL;
  readonly distribution: Distribution;
  readonly alarmTopic: Topic;
  readonly wafLogs: LogGroup;

  constructor(scope: Construct, id: string, props: EdgeStackProps) {
    super(scope, id, { ...props, env: { ...props.env, region: 'us-east-1' } });
    const { edge } = props;
    const removalPolicy = props.stage ? removalPolicyFor(props.stage) : RemovalPolicy.RETAIN;
    const ipSets = this.#ipSets();
    this.webAcl = this.#webAcl(ipSets);
    this.wafLogs = this.#wafLogs(this.webAcl, removalPolicy);
    const certificate = Certificate.fromCertificateArn(this, 'Certificate', edge.certificateArn);
    this.distribution = this.#distribution(edge, certificate, this.webAcl);
    this.alarmTopic = this.#alarmTopic(removalPolicy);
    subscribeAlarmEndpoints(this.alarmTopic, props.alarmEndpoints);
    this.#certificateAlarms(edge, certificate);
    this.#outputs(edge, ipSets);
  }

  /** The web ACL's IP sets: Meta's webhook sources (the operator fills them in) and every IPv6 address. */
  #ipSets(): IpSets {
    // Operators may list Meta's webhook source ranges (AS32934) here: they skip the per-address webhook limits. A WAF
    // IP set holds one IP version, hence two sets. The IPv6 one only matters if the distribution ever serves IPv6.
    const metaSources = new CfnIPSet(this, 'MetaWebhookSources', {
      scope: 'CLOUDFRONT',
      ipAddressVersion: 'IPV4',
      addresses: [],
      description: wafDescription('Meta webhook source ranges, IPv4, exempt from the per-address webhook limits'),
    });
    const metaSourcesIpv6 = new CfnIPSet(this, 'MetaWebhookSourcesIpv6', {
      scope: 'CLOUDFRONT',
      ipAddressVersion: 'IPV6',
      addresses: [],
      description: wafDescription('Meta webhook source ranges, IPv6, exempt from the per-address webhook limits'),
    });
    const ipv6Sources = new CfnIPSet(this, 'Ipv6Sources', {
      scope: 'CLOUDFRONT',
      ipAddressVersion: 'IPV6',
      addresses: [...ALL_IPV6],
      description: wafDescription('Every IPv6 address: the edge serves IPv4 only, see docs/deployment.md'),
    });
    return { metaSources, metaSourcesIpv6, ipv6Sources };
  }

  /** The web ACL: Meta's sources pass the webhook's limits, IPv6 is refused, then the per-address rate rules. */
  #webAcl({ metaSources, metaSourcesIpv6, ipv6Sources }: IpSets): CfnWebACL {
    return new CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      description: wafDescription('Per-source-address rate limits in front of the wp-crm API, CONTRACT 18 and 21'),
      defaultAction: { allow: {} },
      visibilityConfig: metrics('WpCrmEdge'),
      customResponseBodies: {
        [BLOCK_BODY_KEY]: { contentType: 'APPLICATION_JSON', content: EDGE_BLOCK_BODY },
        [IPV6_BODY_KEY]: { contentType: 'APPLICATION_JSON', content: EDGE_IPV6_BODY },
      },
      // Logs and the console's sampled requests see these fields replaced, never their values: bearer tokens, the
      // handshake's verify token, and any body a rule added later might quote in its match details (a client secret).
      dataProtectionConfig: {
        dataProtections: [
          ...EDGE_SECRET_HEADERS.map((name) => protect('SINGLE_HEADER', name)),
          ...EDGE_SECRET_QUERY_ARGUMENTS.map((name) => protect('SINGLE_QUERY_ARGUMENT', name)),
          protect('BODY'),
        ],
      },
      rules: [
        {
          name: 'MetaWebhookSources',
          priority: 0,
          action: { allow: {} },
          statement: {
            andStatement: {
              statements: [
                {
                  orStatement: {
                    statements: [
                      { ipSetReferenceStatement: { arn: metaSources.attrArn } },
                      { ipSetReferenceStatement: { arn: metaSourcesIpv6.attrArn } },
                    ],
                  },
                },
                pathIs(NETWORK_WEBHOOK_PATH),
              ],
            },
          },
          visibilityConfig: metrics('MetaWebhookSources'),
        },
        {
          name: 'Ipv6NotServed',
          priority: 1,
          action: {
            block: { customResponse: { responseCode: 403, customResponseBodyKey: IPV6_BODY_KEY } },
          },
          statement: { ipSetReferenceStatement: { arn: ipv6Sources.attrArn } },
          visibilityConfig: metrics('Ipv6NotServed'),
        },
        ...EDGE_RATE_RULES.map((rule, index) => rateRule(rule, index + 2)),
      ],
    });
  }

  #wafLogs(webAcl: CfnWebACL, removalPolicy: RemovalPolicy): LogGroup {
    // What the web ACL blocks, in a log group WAF accepts (its name must start with aws-waf-logs-, in us-east-1 for
    // CloudFront: https://docs.aws.amazon.com/waf/latest/developerguide/logging-cw-logs.html). Allowed requests reach
    // API Gateway, whose access log has them; logging them here too would add hundreds of gigabytes a day at the
    // capacity plan's 450 million webhook posts (a record carries every header). The stack's id in the name lets a
    // stack created again next to a retained log group make a new one.
    const wafLogs = new LogGroup(this, 'WafLogs', {
      logGroupName: Fn.join('', ['aws-waf-logs-', this.stackName, '-', Fn.select(2, Fn.split('/', Aws.STACK_ID))]),
      // Abuse is often noticed weeks later; three months of blocked requests stay small unless an attack is on.
      retention: RetentionDays.THREE_MONTHS,
      removalPolicy,
    });
    new CfnLoggingConfiguration(this, 'WebAclLogging', {
      resourceArn: webAcl.attrArn,
      // The log group's ARN without the `:*` that its Arn attribute ends with.
      logDestinationConfigs: [
        this.formatArn({
          service: 'logs',
          resource: 'log-group',
          resourceName: wafLogs.logGroupName,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      ],
      // The log configuration's own redaction (it can only take whole headers, the query string, the path or the
      // method: https://docs.aws.amazon.com/waf/latest/APIReference/API_LoggingConfiguration.html), on top of the
      // web ACL's data protection, which also covers sampled requests.
      redactedFields: [...EDGE_SECRET_HEADERS.map((name) => ({ singleHeader: { Name: name } })), { queryString: {} }],
      loggingFilter: {
        DefaultBehavior: 'DROP',
        Filters: [
          { Behavior: 'KEEP', Requirement: 'MEETS_ANY', Conditions: [{ ActionCondition: { Action: 'BLOCK' } }] },
        ],
      },
    });
    return wafLogs;
  }

  /** CloudFront in front of the API's origin domain, presenting the client certificate the origin requires. */
  #distribution(edge: EdgeConfig, certificate: ICertificate, webAcl: CfnWebACL): Distribution {
    const distribution = new Distribution(this, 'Distribution', {
      comment: 'wp-crm API behind AWS WAF',
      domainNames: [edge.domainName],
      certificate,
      minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_ALL,
      // IPv4 only: WAF cannot count an IPv6 client per prefix (edge-rules.ts, ALL_IPV6).
      enableIpv6: false,
      webAclId: webAcl.attrArn,
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
    (distribution.node.defaultChild as CfnDistribution).addPropertyOverride(
      'DistributionConfig.Origins.0.CustomOriginConfig.OriginMtlsConfig',
      { ClientCertificateArn: edge.originClientCertificateArn },
    );

    Validations.of(distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason: 'Integrators and Meta call from every country; no geo restriction applies to this API.',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          'Requests the web ACL blocks are logged by WAF (WafLogs, secrets redacted); requests it allows go on to API Gateway, whose access log records them, and CloudFront metrics count origin failures. CloudFront logs would repeat them.',
      },
    );
    return distribution;
  }

  #certificateAlarms(edge: EdgeConfig, certificate: ICertificate): void {
    // The client certificate is imported (issued by the operator's CA), and ACM never renews an imported one; the
    // viewer certificate may be imported too, and if ACM issued it, dropping below the threshold means its renewal
    // is stuck. The origin's certificate lives in the API's region, where an alarm of this stack cannot watch it.
    // DaysToExpiry (AWS/CertificateManager, dimension CertificateArn; its daily minimum) is no longer emitted once
    // the certificate has expired, nor for an ARN that names none, so no data counts as breaching
    // (https://docs.aws.amazon.com/cdk/api/v2/docs/aws-cdk-lib.aws_certificatemanager.ICertificate.html).
    const expiring: [string, ICertificate, string][] = [
      [
        'OriginClientCertificateExpiry',
        Certificate.fromCertificateArn(this, 'OriginClientCertificate', edge.originClientCertificateArn),
        'the client certificate CloudFront presents to the origin (edgeOriginClientCertificateArn); when it expires every API request fails',
      ],
      [
        'ViewerCertificateExpiry',
        certificate,
        `the certificate of ${edge.domainName} (edgeCertificateArn); when it expires callers cannot connect`,
      ],
    ];
    for (const [alarmId, cert, what] of expiring) {
      new Alarm(this, alarmId, {
        alarmDescription: `Fewer than ${CERTIFICATE_EXPIRY_ALARM_DAYS} days left on ${what}. Renew it (docs/operations.md).`,
        metric: cert.metricDaysToExpiry(),
        threshold: CERTIFICATE_EXPIRY_ALARM_DAYS,
        comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.BREACHING,
      }).addAlarmAction(new SnsAction(this.alarmTopic));
    }
  }

  #outputs(edge: EdgeConfig, ipSets: IpSets): void {
    new CfnOutput(this, 'EdgeUrl', {
      value: `https://${edge.domainName}/api/wp-crm`,
      description: 'Base URL of the API behind CloudFront and WAF: point DNS for the domain at DistributionDomainName',
    });
    new CfnOutput(this, 'DistributionDomainName', {
      value: this.distribution.distributionDomainName,
      description: 'CloudFront domain: the target of the CNAME/alias of the API domain (an A alias only: IPv4)',
    });
    new CfnOutput(this, 'WebAclArn', { value: this.webAcl.attrArn, description: 'The edge web ACL (AWS WAF)' });
    new CfnOutput(this, 'MetaWebhookSourcesArn', {
      value: ipSets.metaSources.attrArn,
      description: "IP set for Meta's IPv4 webhook source ranges (exempt from the per-address webhook limits)",
    });
    new CfnOutput(this, 'MetaWebhookSourcesIpv6Arn', {
      value: ipSets.metaSourcesIpv6.attrArn,
      description: "IP set for Meta's IPv6 webhook source ranges (exempt from the per-address webhook limits)",
    });
    new CfnOutput(this, 'WafLogGroupName', {
      value: this.wafLogs.logGroupName,
      description: 'CloudWatch Logs group of the requests the web ACL blocked (secrets redacted)',
    });
    new CfnOutput(this, 'EdgeAlarmTopicArn', {
      value: this.alarmTopic.topicArn,
      description:
        "SNS topic (us-east-1) the edge's alarms notify: subscribe the on-call address, or deploy with -c alarmEmail=…",
    });
  }

  /**
   * The edge's alarm topic: encrypted with a customer-managed key, since CloudWatch cannot use the AWS-managed SNS
   * key, and both the key's and the topic's policy let CloudWatch in for this account's alarms only.
   */
  #alarmTopic(removalPolicy: RemovalPolicy): Topic {
    const fromOwnAlarms = {
      StringEquals: { 'aws:SourceAccount': this.account },
      ArnLike: { 'aws:SourceArn': `arn:${this.partition}:cloudwatch:${this.region}:${this.account}:alarm:*` },
    };
    const cloudWatch = new iam.ServicePrincipal('cloudwatch.amazonaws.com');
    const key = new Key(this, 'AlarmTopicKey', {
      description: 'Encrypts the wp-crm edge alarm topic; CloudWatch may use it for this account’s alarms',
      enableKeyRotation: true,
      removalPolicy,
    });
    denyGrantsButForAwsResources(key);
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [cloudWatch],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: fromOwnAlarms,
      }),
    );
    const topic = new Topic(this, 'AlarmTopic', {
      displayName: 'wp-crm edge alarms',
      enforceSSL: true,
      masterKey: key,
    });
    topic.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [cloudWatch],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: fromOwnAlarms,
      }),
    );
    return topic;
  }
}

function metrics(name: string): CfnWebACL.VisibilityConfigProperty {
  return { cloudWatchMetricsEnabled: true, metricName: name, sampledRequestsEnabled: true };
}

function protect(fieldType: string, key?: string): CfnWebACL.DataProtectProperty {
  return { action: 'SUBSTITUTION', field: { fieldType, fieldKeys: key ? [key] : undefined } };
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
