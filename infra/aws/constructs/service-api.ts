import { type RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  ApiMapping,
  type CfnStage,
  DomainName,
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  type HttpStage,
  LogGroupLogDestination,
  SecurityPolicy,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { issueToken } from '#shared/routes/foundation';
import { receiveNetworkWebhook, verifyNetworkWebhook } from '#shared/routes/groups';
import { BASE_PATH, type RouteDef, routeKey } from '#shared/routes/route';
import type { EdgeConfig } from '../edge.ts';
import { pascalCase } from '../naming.ts';

export interface Throttle {
  rateLimit: number;
  burstLimit: number;
}

/**
 * API Gateway's throttle quota per account and region, all APIs together, as a new account has it ("Throttle quota
 * per account, per Region across HTTP APIs, REST APIs, WebSocket APIs and WebSocket callback APIs": 10,000 requests/s,
 * burst 5,000; https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html). A route's or stage's limit
 * above the account's is never reached: the account's binds first.
 */
export const API_ACCOUNT_THROTTLE_DEFAULT: Throttle = { rateLimit: 10_000, burstLimit: 5_000 };

/** No route takes more than this share of the account's quota (CONTRACT §22: 60 % of each limit). */
export const ROUTE_SHARE_OF_ACCOUNT = 0.6;

/**
 * Meta's notifications to the network webhook: as much as one route may take of the account's quota. At the
 * capacity plan's volume (docs/SCALE.md, "The network webhook": 100,000,000 messages a day, a quarter sent into groups
 * of 8 — a `sent` and, per member, a `delivered` and a `read`: 15 notifications each — three quarters inbound, one
 * each) Meta sends 450,000,000 notifications a day: 5,208/s on average, 10,400/s in a peak hour at twice the average
 * if it batched nothing. The default account quota gives the route 6,000/s, enough for about 58 % of the plan's peak;
 * an operator who raised the account's quota declares it (`-c apiAccountRateLimit=… -c apiAccountBurstLimit=…`,
 * docs/deployment.md) and the route takes 60 % of that (20,000/s raised → 12,000/s). Meta retries what is throttled.
 */
export function networkWebhookThrottle(account: Throttle = API_ACCOUNT_THROTTLE_DEFAULT): Throttle {
  return {
    rateLimit: Math.floor(account.rateLimit * ROUTE_SHARE_OF_ACCOUNT),
    burstLimit: Math.floor(account.burstLimit * ROUTE_SHARE_OF_ACCOUNT),
  };
}

/** The network webhook's throttle under the default account quota. */
export const NETWORK_WEBHOOK_THROTTLE: Throttle = networkWebhookThrottle();

/**
 * The public routes' own throttles (docs/deployment.md: errors produced by API Gateway itself). Each costs work before anyone
 * is known: a token attempt hashes a secret with scrypt, a webhook call checks an HMAC and writes, and `$default`
 * answers every unknown path. The network webhook's is sized for Meta's volume instead (networkWebhookThrottle), and
 * protected from single addresses by the edge's per-address rule (infra/aws/constructs/edge-rules.ts).
 */
export function publicRouteThrottles(account: Throttle = API_ACCOUNT_THROTTLE_DEFAULT): Record<string, Throttle> {
  return {
    [routeKey(issueToken)]: { rateLimit: 20, burstLimit: 40 },
    [routeKey(receiveNetworkWebhook)]: networkWebhookThrottle(account),
    [routeKey(verifyNetworkWebhook)]: { rateLimit: 5, burstLimit: 10 },
    $default: { rateLimit: 20, burstLimit: 40 },
  };
}

/** The public routes' throttles under the default account quota. */
export const PUBLIC_ROUTE_THROTTLES: Readonly<Record<string, Throttle>> = publicRouteThrottles();

/**
 * The API's access log: one JSON object per request, each field one of API Gateway's `$context` variables for HTTP
 * APIs (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-logging-variables.html), so that
 * CloudWatch Logs Insights finds them by name (`filter status >= 500 | stats count() by routeKey`). No header but
 * the user agent and no query string: bearer tokens and Meta's verify token never reach the log. Behind the edge
 * `sourceIp` is CloudFront's address (the caller's reaches the functions in a CloudFront header: shared/http/edge.ts).
 */
export const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  sourceIp: '$context.identity.sourceIp',
  httpMethod: '$context.httpMethod',
  path: '$context.path',
  protocol: '$context.protocol',
  routeKey: '$context.routeKey',
  status: '$context.status',
  responseLength: '$context.responseLength',
  /** From the request's arrival to the answer, in ms. */
  responseLatency: '$context.responseLatency',
  /** The Lambda invocation's share of it, in ms. */
  integrationLatency: '$context.integrationLatency',
  /** Lambda's own status for the invocation (429 when Lambda throttled it), not the function's answer. */
  integrationStatus: '$context.integrationStatus',
  /**
   * API Gateway's own error message, e.g. `Too Many Requests` when a route throttle refused the request: its quoted
   * form (`messageString`, a JSON string API Gateway writes with its quotes), so a message holding a quote still
   * leaves the line one JSON object. The format writes it without quotes of its own (ACCESS_LOG_FORMAT).
   */
  errorMessage: '$context.error.messageString',
  /** Why the integration failed (the invocation timed out, was throttled, returned a malformed answer, …). */
  integrationError: '$context.integrationErrorMessage',
  userAgent: '$context.identity.userAgent',
} as const;

/** Variables API Gateway writes as JSON strings, quotes included: the format must not quote them again. */
const QUOTED_BY_API_GATEWAY = ['$context.error.messageString'];

/** ACCESS_LOG_FIELDS as the stage's access log format: one line of JSON. */
export const ACCESS_LOG_FORMAT = QUOTED_BY_API_GATEWAY.reduce(
  (format, variable) => format.replace(`"${variable}"`, variable),
  JSON.stringify(ACCESS_LOG_FIELDS),
);

export interface ServiceApiProps {
  /** The contract's routes (shared/routes/index.ts); each goes to the function of its `fn`. */
  routes: readonly RouteDef[];
  /** The deployed function of a `functions/` folder. */
  functionFor: (fn: string) => IFunction;
  /**
   * Where a route, its integration and its Lambda permission are defined (the function's concern stack).
   * @default - the API's own scope
   */
  scopeFor?: (route: RouteDef) => Construct;
  /** Answers every unmatched request with the contract's problem+json 404/405 (the `$default` route). */
  fallback: IFunction;
  /**
   * Steady-state requests per second for the whole stage.
   * @default 100
   */
  rateLimit?: number;
  /**
   * Burst capacity for the whole stage.
   * @default 200
   */
  burstLimit?: number;
  /**
   * API Gateway's throttle quota of the account and region the API is deployed to (raised by a quota request).
   * @default API_ACCOUNT_THROTTLE_DEFAULT
   */
  accountThrottle?: Throttle;
  /**
   * Throttles of single routes by route key, besides the stage's.
   * @default publicRouteThrottles(accountThrottle)
   */
  routeThrottles?: Readonly<Record<string, Throttle>>;
  /**
   * Removal policy of the access log group.
   * @default RemovalPolicy.RETAIN
   */
  logRemovalPolicy?: RemovalPolicy;
  /**
   * The edge in front of the API: the API is then reachable only at the origin custom domain, which requires the
   * client certificate that CloudFront presents (mutual TLS); the execute-api endpoint is off.
   * @default - no edge: the execute-api endpoint serves the API (dev only; docs/deployment.md, the edge)
   */
  edge?: EdgeConfig;
}

/**
 * The HTTP API: one route per contract route below BASE_PATH, a `$default` route so that unknown paths and methods
 * get the contract's problem documents instead of API Gateway's bare `{"message":"Not Found"}` (a deliberate
 * exception to RELIABILITY K-5's "no $default"), stage throttling and JSON access logs.
 */
export class ServiceApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  /** The API's base URL including BASE_PATH, as the local stack reports it. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: ServiceApiProps) {
    super(scope, id);
    this.api = new HttpApi(this, 'Api', {
      description: 'wp-crm groups & reports API',
      createDefaultStage: false,
      defaultIntegration: new HttpLambdaIntegration('Fallback', props.fallback),
      disableExecuteApiEndpoint: props.edge !== undefined,
    });
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy,
    });
    this.stage = this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      // The default of each route (API Gateway applies it per route); every route also has its own setting below.
      throttle: { rateLimit: props.rateLimit ?? 100, burstLimit: props.burstLimit ?? 200 },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(ACCESS_LOG_FORMAT),
      },
    });

    const integrations = new Map<string, HttpLambdaIntegration>();
    const routes: HttpRoute[] = [];
    for (const route of props.routes) {
      let integration = integrations.get(route.fn);
      if (!integration) {
        integration = new HttpLambdaIntegration(`${pascalCase(route.fn)}Integration`, props.functionFor(route.fn));
        integrations.set(route.fn, integration);
      }
      // The route (and with its first route, the integration and each route's permission) in the route's scope: a
      // function's whole wiring lives in its concern's stack, next to the function.
      const path = `${BASE_PATH}${route.path}`;
      const httpRoute = new HttpRoute(props.scopeFor?.(route) ?? this.api, `${route.method}${path}`, {
        httpApi: this.api,
        routeKey: HttpRouteKey.with(path, HttpMethod[route.method]),
        integration,
      });
      this.stage.node.addDependency(httpRoute);
      routes.push(httpRoute);
    }
    const defaultRoute = this.api.node.tryFindChild('DefaultRoute');
    if (defaultRoute) this.stage.node.addDependency(defaultRoute);
    // Every route has a throttle of its own (CONTRACT §21): the public routes theirs, every other route the stage's
    // default limits, written out so that no route's limit depends on what the stage default means. Route settings
    // name routes by key; the stage depends on every route so that they exist when it is updated. The property is a
    // JSON map that CDK passes through as is, hence the CloudFormation casing.
    const throttles = props.routeThrottles ?? publicRouteThrottles(props.accountThrottle);
    const stageDefault = { rateLimit: props.rateLimit ?? 100, burstLimit: props.burstLimit ?? 200 };
    const keys = [...props.routes.map(routeKey), '$default'];
    for (const key of Object.keys(throttles)) {
      if (!keys.includes(key)) throw new Error(`route throttle for ${key}: no such route`);
    }
    (this.stage.node.defaultChild as CfnStage).routeSettings = Object.fromEntries(
      keys.map((key) => {
        const throttle = throttles[key] ?? stageDefault;
        return [key, { ThrottlingRateLimit: throttle.rateLimit, ThrottlingBurstLimit: throttle.burstLimit }];
      }),
    );
    this.url = props.edge ? `https://${props.edge.domainName}${BASE_PATH}` : `${this.api.apiEndpoint}${BASE_PATH}`;
    if (props.edge) this.#originDomain(props.edge);

    for (const scope of [this.api, ...routes]) {
      Validations.of(scope).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason:
          "Every function authenticates its route's ES256 bearer token itself (shared/http/api.ts), with the roles " +
          'of the route table; public routes (token, JWKS, health, OpenAPI) and the 404/405 fallback need none.',
      });
    }
  }

  /**
   * The custom domain CloudFront calls: TLS 1.2, and only with a client certificate its truststore trusts. With an
   * imported or private server certificate, API Gateway also needs the operator's ACM-issued ownership certificate.
   */
  #originDomain(edge: EdgeConfig): void {
    const truststore = /^s3:\/\/([^/]+)\/(.+)$/.exec(edge.originTruststoreUri)!;
    const domain = new DomainName(this, 'OriginDomain', {
      domainName: edge.originDomainName,
      certificate: Certificate.fromCertificateArn(this, 'OriginCertificate', edge.originCertificateArn),
      ownershipCertificate: edge.originOwnershipCertificateArn
        ? Certificate.fromCertificateArn(this, 'OriginOwnershipCertificate', edge.originOwnershipCertificateArn)
        : undefined,
      securityPolicy: SecurityPolicy.TLS_1_2,
      mtls: { bucket: Bucket.fromBucketName(this, 'Truststore', truststore[1]!), key: truststore[2]! },
    });
    new ApiMapping(this, 'OriginMapping', { api: this.api, domainName: domain, stage: this.stage });
  }
}
