import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { parseAlarmEndpoints } from './alarm-endpoints.ts';
import type { Throttle } from './constructs/service-api.ts';
import { addControlTowerChecks } from './control-tower.ts';
import { parseEdge } from './edge.ts';
import { contextSettings } from './settings.ts';
import { EdgeStack } from './stacks/edge-stack.ts';
import { ServiceStack } from './stacks/service-stack.ts';
import { parseStage, type Stage } from './stage.ts';

/** `-c <name>=N`: a positive integer, or undefined when not given. */
function positiveInteger(name: string, value: unknown): number | undefined {
  if (value === undefined || value === '') return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw new Error(`${name} must be a positive integer, not ${JSON.stringify(value)}`);
  }
  return number;
}

/**
 * API Gateway's throttle quota of the target account and region, when the operator raised it (docs/deployment.md:
 * `-c apiAccountRateLimit=20000 -c apiAccountBurstLimit=10000`); both or neither.
 */
function apiAccountThrottle(app: App): Throttle | undefined {
  const rateLimit = positiveInteger('apiAccountRateLimit', app.node.tryGetContext('apiAccountRateLimit'));
  const burstLimit = positiveInteger('apiAccountBurstLimit', app.node.tryGetContext('apiAccountBurstLimit'));
  if (rateLimit === undefined && burstLimit === undefined) return undefined;
  if (rateLimit === undefined || burstLimit === undefined) {
    throw new Error('set both -c apiAccountRateLimit and -c apiAccountBurstLimit (the raised quota), or neither');
  }
  return { rateLimit, burstLimit };
}

/**
 * Adds the service's stack for `stage` (default: the `stage` context, else dev) to `app`, and the edge stack in
 * us-east-1 when the edge is configured (always in prod; infra/aws/edge.ts), with the cdk-nag AwsSolutions checks as
 * a validation plugin: an unacknowledged finding fails the synth. Tests call it with their own App.
 */
export function buildApp(app: App, stage: Stage = parseStage(app.node.tryGetContext('stage'))): ServiceStack {
  const edge = parseEdge(app.node, stage);
  // `-c alarmEmail=… -c alarmHttpsEndpoint=…`: both alarm topics notify them (infra/aws/alarm-endpoints.ts).
  const alarmEndpoints = parseAlarmEndpoints(app.node);
  const stack = new ServiceStack(app, `WpCrm-${stage}`, {
    stage,
    description: `wp-crm groups & reports service (${stage})`,
    jwtIssuer: app.node.tryGetContext('jwtIssuer') ?? `https://wp-crm.${stage}`,
    jwtAudience: app.node.tryGetContext('jwtAudience') ?? 'wp-crm-api',
    edge,
    alarmEndpoints,
    apiAccountThrottle: apiAccountThrottle(app),
    // Each setting from `-c <setting in camelCase>=…`, validated as the functions validate it (infra/aws/settings.ts).
    settings: contextSettings((key) => app.node.tryGetContext(key)),
  });
  if (edge) {
    new EdgeStack(app, `WpCrm-${stage}-Edge`, {
      edge,
      stage,
      alarmEndpoints,
      description: `wp-crm edge: CloudFront and AWS WAF in front of the API (${stage})`,
    });
  }
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  // `-c validate=controltower`: AWS Control Tower's proactive controls too (infra/aws/control-tower.ts).
  addControlTowerChecks(app);
  return stack;
}
