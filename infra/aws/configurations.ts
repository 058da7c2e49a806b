/**
 * The documented configurations (docs/deployment.md) that `npm run lint:cfn` validates and the template baseline
 * (infra/aws/template-baseline.ts) records: dev, dev with the edge, prod with the edge, prod with the edge and every
 * optional setting.
 */

/** The operator's edge settings as docs/deployment.md writes them (example values). */
export const EDGE_CONTEXT = {
  edgeDomainName: 'api.example.com',
  edgeCertificateArn: 'arn:aws:acm:us-east-1:111122223333:certificate/11111111-2222-3333-4444-555555555555',
  edgeOriginDomainName: 'origin.api.example.com',
  edgeOriginCertificateArn: 'arn:aws:acm:eu-west-1:111122223333:certificate/66666666-7777-8888-9999-000000000000',
  edgeOriginTruststoreUri: 's3://my-truststore/wp-crm/cloudfront-ca.pem',
  edgeOriginClientCertificateArn: 'arn:aws:acm:us-east-1:111122223333:certificate/aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee',
};

/**
 * The optional settings (docs/deployment.md), all at once: each only adds to the templates (a property, an alarm,
 * subscriptions, higher route throttles), so one configuration covers them together.
 */
export const OPTIONS_CONTEXT = {
  edgeOriginOwnershipCertificateArn:
    'arn:aws:acm:eu-west-1:111122223333:certificate/12121212-3434-5656-7878-909090909090',
  alarmEmail: 'oncall@example.com',
  alarmHttpsEndpoint: 'https://alerts.example.com/hooks/wp-crm',
  apiAccountRateLimit: '20000',
  apiAccountBurstLimit: '10000',
  // A setting (shared/config/settings.ts) as an operator gives it: the console framed by an intranet.
  consoleFrameAncestors: 'https://intranet.example.com',
};

export const CONFIGURATIONS: { name: string; stage: string; context: Record<string, string> }[] = [
  { name: 'dev', stage: 'dev', context: {} },
  { name: 'dev-edge', stage: 'dev', context: EDGE_CONTEXT },
  { name: 'prod-edge', stage: 'prod', context: EDGE_CONTEXT },
  { name: 'prod-edge-options', stage: 'prod', context: { ...EDGE_CONTEXT, ...OPTIONS_CONTEXT } },
];
