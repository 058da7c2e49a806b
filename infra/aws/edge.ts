import type { Node } from 'constructs';
import type { Stage } from './stage.ts';

/**
 * The edge in front of the HTTP API (CONTRACT §18, docs/deployment.md "The edge"): CloudFront with an AWS WAF web ACL
 * of per-source-address rate-based rules, reaching the API only through a regional custom domain that requires
 * CloudFront's client certificate (mutual TLS), with the default execute-api endpoint switched off. Every name and
 * certificate below is the operator's: none can be created by the stack.
 */
export interface EdgeConfig {
  /** The name callers use (CNAME or alias to the distribution), e.g. `api.example.com`. */
  domainName: string;
  /** ACM certificate for `domainName`, in us-east-1 (CloudFront's region). */
  certificateArn: string;
  /** The API's regional custom domain that only CloudFront reaches, e.g. `origin.api.example.com`. */
  originDomainName: string;
  /** ACM certificate for `originDomainName`, in the API's region. */
  originCertificateArn: string;
  /** `s3://bucket/key` of the PEM bundle of the CA that issued `originClientCertificateArn` (API Gateway's truststore). */
  originTruststoreUri: string;
  /** ACM client certificate (us-east-1) that CloudFront presents to the origin (mutual TLS). */
  originClientCertificateArn: string;
  /**
   * A public certificate ACM issued for `originDomainName`, in the API's region, that proves the domain is the
   * operator's. API Gateway requires it on a mutual-TLS custom domain whose `originCertificateArn` is imported into
   * ACM or issued by AWS Private CA, and uses it for nothing else (not in the TLS handshake):
   * https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-mutual-tls.html
   * @default - none: `originCertificateArn` is a public certificate ACM issued
   */
  originOwnershipCertificateArn?: string;
}

type OptionalEdgeKey = 'originOwnershipCertificateArn';
type RequiredEdgeKey = Exclude<keyof EdgeConfig, OptionalEdgeKey>;

/** The context keys, `cdk deploy -c edgeDomainName=… -c edgeCertificateArn=…` (docs/deployment.md). */
export const EDGE_CONTEXT: Readonly<Record<RequiredEdgeKey, string>> = {
  domainName: 'edgeDomainName',
  certificateArn: 'edgeCertificateArn',
  originDomainName: 'edgeOriginDomainName',
  originCertificateArn: 'edgeOriginCertificateArn',
  originTruststoreUri: 'edgeOriginTruststoreUri',
  originClientCertificateArn: 'edgeOriginClientCertificateArn',
};

/** The context keys the edge takes when the operator's certificates need them, beside EDGE_CONTEXT's. */
export const EDGE_OPTIONAL_CONTEXT: Readonly<Record<OptionalEdgeKey, string>> = {
  originOwnershipCertificateArn: 'edgeOriginOwnershipCertificateArn',
};

const HOST = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const ACM_ARN = /^arn:aws[a-z-]*:acm:([a-z0-9-]+):\d{12}:certificate\/[0-9a-f-]{36}$/;
const S3_URI = /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]\/\S+$/;

/**
 * The edge of `stage` from the app's context. Every key of EDGE_CONTEXT or none: a partial edge fails the synth, as
 * does a prod stage without one — without the edge a single address can use up the shared route throttles (CONTRACT
 * §18). An optional key (EDGE_OPTIONAL_CONTEXT) without the edge fails it too.
 */
export function parseEdge(node: Node, stage: Stage): EdgeConfig | undefined {
  const values = Object.fromEntries(
    Object.entries(EDGE_CONTEXT).map(([key, contextKey]) => [key, node.tryGetContext(contextKey) as unknown]),
  ) as Record<RequiredEdgeKey, unknown>;
  const ownership = node.tryGetContext(EDGE_OPTIONAL_CONTEXT.originOwnershipCertificateArn) as unknown;
  const given = Object.entries(values).filter(([, value]) => value !== undefined);
  if (given.length === 0) {
    if (ownership !== undefined) {
      throw new Error(
        `-c ${EDGE_OPTIONAL_CONTEXT.originOwnershipCertificateArn} belongs to the edge's origin domain: set -c ${Object.values(EDGE_CONTEXT).join('=… -c ')}=… too, or leave it out (docs/deployment.md)`,
      );
    }
    if (stage === 'prod') {
      throw new Error(
        `stage prod needs the edge (CloudFront + WAF): set -c ${Object.values(EDGE_CONTEXT).join('=… -c ')}=… (docs/deployment.md)`,
      );
    }
    return undefined;
  }
  const problems: string[] = [];
  const check = (key: RequiredEdgeKey, valid: (value: string) => boolean, rule: string) => {
    const value = values[key];
    if (typeof value !== 'string' || !valid(value)) problems.push(`-c ${EDGE_CONTEXT[key]} must be ${rule}`);
  };
  const regionOf = (value: unknown) => (typeof value === 'string' ? ACM_ARN.exec(value)?.[1] : undefined);
  const acm = (region?: string) => (value: string) => {
    const match = ACM_ARN.exec(value);
    return match !== null && (region === undefined || match[1] === region);
  };
  check('domainName', (value) => HOST.test(value), 'a lower-case host name');
  check('certificateArn', acm('us-east-1'), 'an ACM certificate ARN in us-east-1');
  check('originDomainName', (value) => HOST.test(value), 'a lower-case host name');
  check('originCertificateArn', acm(), 'an ACM certificate ARN in the stack region');
  check('originTruststoreUri', (value) => S3_URI.test(value), 'an s3://bucket/key URI');
  check('originClientCertificateArn', acm('us-east-1'), 'an ACM certificate ARN in us-east-1');
  if (values.domainName === values.originDomainName) problems.push('the origin domain must differ from the domain');
  // Beside the origin's own certificate (the custom domain holds both), and never that certificate itself.
  if (ownership !== undefined) {
    const originRegion = regionOf(values.originCertificateArn);
    if (typeof ownership !== 'string' || !acm(originRegion)(ownership)) {
      problems.push(
        `-c ${EDGE_OPTIONAL_CONTEXT.originOwnershipCertificateArn} must be an ACM certificate ARN in the region of ${EDGE_CONTEXT.originCertificateArn}`,
      );
    } else if (ownership === values.originCertificateArn) {
      problems.push(
        `-c ${EDGE_OPTIONAL_CONTEXT.originOwnershipCertificateArn} must be another certificate than ${EDGE_CONTEXT.originCertificateArn}: a public one ACM issued for the origin domain`,
      );
    }
  }
  if (problems.length > 0) throw new Error(`invalid edge configuration: ${problems.join('; ')}`);
  return {
    ...(values as Record<RequiredEdgeKey, string>),
    ...(ownership === undefined ? {} : { originOwnershipCertificateArn: ownership as string }),
  };
}
