import { type RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  type CfnStage,
  HttpApi,
  HttpMethod,
  type HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { issueToken } from '#shared/routes/foundation';
import { receiveNetworkWebhook, verifyNetworkWebhook } from '#shared/routes/groups';
import { BASE_PATH, type RouteDef, routeKey } from '#shared/routes/route';
import { pascalCase } from '../naming.ts';

export interface Throttle {
  rateLimit: number;
  burstLimit: number;
}

/**
 * The public routes' own throttles, below the stage's (README: errors produced by API Gateway itself). Each costs
 * work before anyone is known: a token attempt hashes a secret with scrypt, a webhook call checks an HMAC and writes,
 * and `$default` answers every unknown path.
 */
export const PUBLIC_ROUTE_THROTTLES: Readonly<Record<string, Throttle>> = {
  [routeKey(issueToken)]: { rateLimit: 20, burstLimit: 40 },
  [routeKey(receiveNetworkWebhook)]: { rateLimit: 50, burstLimit: 100 },
  [routeKey(verifyNetworkWebhook)]: { rateLimit: 5, burstLimit: 10 },
  $default: { rateLimit: 20, burstLimit: 40 },
};

export interface ServiceApiProps {
  /** The contract's routes (shared/routes/index.ts); each goes to the function of its `fn`. */
  routes: readonly RouteDef[];
  /** The deployed function of a `functions/` folder. */
  functionFor: (fn: string) => IFunction;
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
   * Throttles of single routes by route key, besides the stage's.
   * @default PUBLIC_ROUTE_THROTTLES
   */
  routeThrottles?: Readonly<Record<string, Throttle>>;
  /**
   * Removal policy of the access log group.
   * @default RemovalPolicy.RETAIN
   */
  logRemovalPolicy?: RemovalPolicy;
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
    });
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy,
    });
    this.stage = this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: props.rateLimit ?? 100, burstLimit: props.burstLimit ?? 200 },
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs) },
    });

    const integrations = new Map<string, HttpLambdaIntegration>();
    for (const route of props.routes) {
      let integration = integrations.get(route.fn);
      if (!integration) {
        integration = new HttpLambdaIntegration(`${pascalCase(route.fn)}Integration`, props.functionFor(route.fn));
        integrations.set(route.fn, integration);
      }
      const added = this.api.addRoutes({
        path: `${BASE_PATH}${route.path}`,
        methods: [HttpMethod[route.method]],
        integration,
      });
      for (const httpRoute of added) this.stage.node.addDependency(httpRoute);
    }
    const defaultRoute = this.api.node.tryFindChild('DefaultRoute');
    if (defaultRoute) this.stage.node.addDependency(defaultRoute);
    // Route settings name routes by key; the stage depends on every route so that they exist when it is updated.
    // The property is a JSON map that CDK passes through as is, hence the CloudFormation casing.
    const throttles = props.routeThrottles ?? PUBLIC_ROUTE_THROTTLES;
    (this.stage.node.defaultChild as CfnStage).routeSettings = Object.fromEntries(
      Object.entries(throttles).map(([key, throttle]) => [
        key,
        { ThrottlingRateLimit: throttle.rateLimit, ThrottlingBurstLimit: throttle.burstLimit },
      ]),
    );
    this.url = `${this.api.apiEndpoint}${BASE_PATH}`;

    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        "Every function authenticates its route's ES256 bearer token itself (shared/http/api.ts), with the roles " +
        'of the route table; public routes (token, JWKS, health, OpenAPI) and the 404/405 fallback need none.',
    });
  }
}
