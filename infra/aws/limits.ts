import { type DeploymentContext, physicalResources, type Template, TemplateResolver } from '../cdk-local/template.ts';
import { API_ACCOUNT_THROTTLE_DEFAULT, type Throttle } from './constructs/service-api.ts';

/**
 * What `cdk deploy` receives, measured against the AWS quotas its resources meet (CONTRACT §22): every figure must
 * stay at or below HEADROOM of its limit, so that the deployment can grow by several routes and workers before any
 * limit is near. Each limit names the AWS page that sets it.
 */
export const HEADROOM = 0.6;

export const LIMITS = {
  /** https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html */
  resources: 500,
  outputs: 200,
  parameters: 200,
  mappings: 200,
  /** A template uploaded through S3, as CDK uploads every template and nested template: 1 MB. */
  templateBytes: 1_048_576,
  /** https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html: a role's inline policies together. */
  roleInlinePolicyChars: 10_240,
  /** https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html */
  functionEnvironmentBytes: 4_096,
  functionResourcePolicyBytes: 20_480,
  /** Concurrent executions per account and region, as a quota raise or AWS's default sets it (new accounts less). */
  concurrentExecutions: 1_000,
  /** https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-policies.html */
  queuePolicyConditions: 10,
  queuePolicyStatements: 20,
  /** https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-quota.html */
  ruleTargets: 5,
} as const;

/**
 * The concurrency Lambda keeps unreserved in every account and region: a function may reserve only what leaves this
 * much to the functions without a reservation ("minus 100 for functions that don't have reserved concurrency",
 * https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html).
 */
export const LAMBDA_UNRESERVED_MINIMUM = 100;

/**
 * The Lambda concurrency quota a deployment needs in the API's region (docs/deployment.md: the account quotas to check):
 * the concurrency its functions reserve, and that plus what Lambda keeps unreserved. The deploy fails with
 * `ReservedConcurrentExecutions … decreases account's UnreservedConcurrentExecution below its minimum value` in an
 * account whose quota is below `needed`.
 */
export function concurrencyQuota(template: Template): { reserved: number; needed: number } {
  const reserved = Object.values(template.Resources)
    .filter((resource) => resource.Type === 'AWS::Lambda::Function')
    .reduce((sum, fn) => sum + Number(fn.Properties?.ReservedConcurrentExecutions ?? 0), 0);
  return { reserved, needed: reserved + LAMBDA_UNRESERVED_MINIMUM };
}

export interface Measurement {
  /** What was measured: `<stack> resources`, `role <id> inline policy`, … */
  subject: string;
  value: number;
  limit: number;
}

export interface StackTemplate {
  /** The stack's name, or `<stack>/<nested stack>` for a nested one. */
  name: string;
  /** The template as CDK writes it (and uploads it). */
  template: Template & { Parameters?: object; Mappings?: object };
}

export interface Deployment {
  /** Every template of the deployment, nested ones included. */
  stacks: StackTemplate[];
  /** The service stack with its nested stacks flattened (infra/cdk-local/flatten.ts): per-resource checks. */
  flat: Template;
  /** The account quota the route throttles must stay within (`-c apiAccountRateLimit`, or AWS's default). */
  accountThrottle?: Throttle;
}

/**
 * Realistic names for the sizes that depend on them: a long region, a 12-digit account, and every generated name at
 * the longest CloudFormation makes (the local runner's names are cut at the same maximum lengths).
 */
const SIZING_CONTEXT: DeploymentContext = {
  stackName: 'WpCrm-prod',
  region: 'ap-southeast-2',
  account: '123456789012',
  awsEndpoint: 'https://sqs.ap-southeast-2.amazonaws.com',
  apiOrigin: 'https://abcdefghij.execute-api.ap-southeast-2.amazonaws.com',
};

/** Every measurement of a deployment against its limit. */
export function measureDeployment(deployment: Deployment): Measurement[] {
  const flat = deployment.flat;
  const resolver = new TemplateResolver(SIZING_CONTEXT, physicalResources(flat, SIZING_CONTEXT));
  return [
    ...deployment.stacks.flatMap(stackMeasurements),
    ...rolePolicyMeasurements(flat, resolver),
    ...environmentMeasurements(flat, resolver),
    ...resourcePolicyMeasurements(flat, resolver),
    ...queuePolicyMeasurements(flat),
    {
      subject: 'reserved concurrency with the unreserved minimum',
      value: concurrencyQuota(flat).needed,
      limit: LIMITS.concurrentExecutions,
    },
    ...resourcesOf(flat, 'AWS::Events::Rule').map(([id, rule]) => ({
      subject: `rule ${id} targets`,
      value: (rule.Properties?.Targets ?? []).length,
      limit: LIMITS.ruleTargets,
    })),
    ...throttleMeasurements(flat, deployment.accountThrottle ?? API_ACCOUNT_THROTTLE_DEFAULT),
  ];
}

const resourcesOf = (template: Template, type: string) =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);

/** A template's resources, outputs, parameters, mappings and size. */
function stackMeasurements({ name, template }: StackTemplate): Measurement[] {
  return [
    { subject: `${name} resources`, value: Object.keys(template.Resources).length, limit: LIMITS.resources },
    { subject: `${name} outputs`, value: Object.keys(template.Outputs ?? {}).length, limit: LIMITS.outputs },
    { subject: `${name} parameters`, value: Object.keys(template.Parameters ?? {}).length, limit: LIMITS.parameters },
    { subject: `${name} mappings`, value: Object.keys(template.Mappings ?? {}).length, limit: LIMITS.mappings },
    // As `cdk synth` writes the file that is uploaded (one-space indentation).
    {
      subject: `${name} template bytes`,
      value: Buffer.byteLength(JSON.stringify(template, undefined, 1)),
      limit: LIMITS.templateBytes,
    },
  ];
}

/** A role's inline policies (its own Policies and every AWS::IAM::Policy attached to it), without whitespace. */
function rolePolicyMeasurements(flat: Template, resolver: TemplateResolver): Measurement[] {
  const policyChars = new Map<string, number>();
  for (const [id, role] of resourcesOf(flat, 'AWS::IAM::Role')) {
    const inline = (role.Properties?.Policies ?? []) as { PolicyDocument: unknown }[];
    policyChars.set(
      id,
      inline.reduce((sum, policy) => sum + compactLength(resolver.resolve(policy.PolicyDocument)), 0),
    );
  }
  for (const [, policy] of resourcesOf(flat, 'AWS::IAM::Policy')) {
    const size = compactLength(resolver.resolve(policy.Properties?.PolicyDocument));
    for (const role of (policy.Properties?.Roles ?? []) as { Ref?: string }[]) {
      if (role.Ref) policyChars.set(role.Ref, (policyChars.get(role.Ref) ?? 0) + size);
    }
  }
  return [...policyChars].map(([id, chars]) => ({
    subject: `role ${id} inline policies (characters)`,
    value: chars,
    limit: LIMITS.roleInlinePolicyChars,
  }));
}

/** A function's environment, its values resolved (as Lambda stores them). */
function environmentMeasurements(flat: Template, resolver: TemplateResolver): Measurement[] {
  return resourcesOf(flat, 'AWS::Lambda::Function').map(([id, fn]) => ({
    subject: `function ${id} environment bytes`,
    value: Buffer.byteLength(JSON.stringify(resolver.resolve(fn.Properties?.Environment?.Variables ?? {}))),
    limit: LIMITS.functionEnvironmentBytes,
  }));
}

/** A function's resource policy: one statement per AWS::Lambda::Permission. */
function resourcePolicyMeasurements(flat: Template, resolver: TemplateResolver): Measurement[] {
  const permissionBytes = new Map<string, number>();
  for (const [id, permission] of resourcesOf(flat, 'AWS::Lambda::Permission')) {
    const props = resolver.resolve(permission.Properties ?? {}) as Record<string, string>;
    const statement = {
      Sid: id,
      Effect: 'Allow',
      Principal: { Service: props.Principal },
      Action: props.Action,
      Resource: props.FunctionName,
      ...(props.SourceArn ? { Condition: { ArnLike: { 'AWS:SourceArn': props.SourceArn } } } : {}),
    };
    const fn = String(props.FunctionName);
    permissionBytes.set(fn, (permissionBytes.get(fn) ?? 50) + JSON.stringify(statement).length + 1);
  }
  return [...permissionBytes].map(([fn, bytes]) => ({
    subject: `function ${fn.split(':').pop()} resource policy bytes`,
    value: bytes,
    limit: LIMITS.functionResourcePolicyBytes,
  }));
}

/** A queue policy's statements and conditions (each operator-key pair is one condition). */
function queuePolicyMeasurements(flat: Template): Measurement[] {
  return resourcesOf(flat, 'AWS::SQS::QueuePolicy').flatMap(([id, policy]) => {
    const statements = [policy.Properties?.PolicyDocument?.Statement ?? []].flat() as { Condition?: object }[];
    const conditions = statements.reduce(
      (sum, statement) =>
        sum + Object.values(statement.Condition ?? {}).reduce((count, keys) => count + Object.keys(keys).length, 0),
      0,
    );
    return [
      { subject: `queue policy ${id} conditions`, value: conditions, limit: LIMITS.queuePolicyConditions },
      { subject: `queue policy ${id} statements`, value: statements.length, limit: LIMITS.queuePolicyStatements },
    ];
  });
}

/** Route and stage throttles against the account's quota: a limit above it is never reached. */
function throttleMeasurements(flat: Template, account: Throttle): Measurement[] {
  const measurements: Measurement[] = [];
  for (const [id, stage] of resourcesOf(flat, 'AWS::ApiGatewayV2::Stage')) {
    const settings = {
      $stage: stage.Properties?.DefaultRouteSettings,
      ...(stage.Properties?.RouteSettings ?? {}),
    } as Record<string, { ThrottlingRateLimit?: number; ThrottlingBurstLimit?: number } | undefined>;
    for (const [route, throttle] of Object.entries(settings)) {
      if (throttle?.ThrottlingRateLimit !== undefined) {
        measurements.push({
          subject: `${id} ${route} requests/s`,
          value: throttle.ThrottlingRateLimit,
          limit: account.rateLimit,
        });
      }
      if (throttle?.ThrottlingBurstLimit !== undefined) {
        measurements.push({
          subject: `${id} ${route} burst`,
          value: throttle.ThrottlingBurstLimit,
          limit: account.burstLimit,
        });
      }
    }
  }
  return measurements;
}

/** The measurements above HEADROOM of their limit. */
export function overHeadroom(measurements: readonly Measurement[]): Measurement[] {
  return measurements.filter((measurement) => measurement.value > measurement.limit * HEADROOM);
}

const compactLength = (value: unknown) => JSON.stringify(value).length;

/**
 * What one more function costs in a stack, counted from the template: the function and everything that names it
 * (its role and that role's policies, its log group, its alarms, its permissions and event source mappings, its
 * integrations with their routes, its event-invoke config). `routes` is how many routes reach it.
 */
export function functionFootprints(
  template: Template,
): { id: string; resources: number; routes: number; queues: number }[] {
  const entries = Object.entries(template.Resources);
  const refersTo = (value: unknown, id: string): boolean => JSON.stringify(value ?? null).includes(`"${id}"`);
  return entries
    .filter(([, resource]) => resource.Type === 'AWS::Lambda::Function')
    .map(([id, fn]) => {
      const owned = new Set([id]);
      const role = (fn.Properties?.Role as { 'Fn::GetAtt'?: [string] })?.['Fn::GetAtt']?.[0];
      const logGroup = (fn.Properties?.LoggingConfig?.LogGroup as { Ref?: string })?.Ref;
      if (role) owned.add(role);
      if (logGroup) owned.add(logGroup);
      for (const [otherId, other] of entries) {
        const props = other.Properties ?? {};
        const linked =
          (other.Type === 'AWS::IAM::Policy' && role !== undefined && refersTo(props.Roles, role)) ||
          (other.Type === 'AWS::CloudWatch::Alarm' && refersTo(props.Dimensions ?? props.Metrics, id)) ||
          (other.Type === 'AWS::Logs::MetricFilter' &&
            logGroup !== undefined &&
            refersTo(props.LogGroupName, logGroup)) ||
          (['AWS::Lambda::Permission', 'AWS::Lambda::EventSourceMapping', 'AWS::Lambda::EventInvokeConfig'].includes(
            other.Type,
          ) &&
            refersTo(props.FunctionName, id)) ||
          (other.Type === 'AWS::ApiGatewayV2::Integration' && refersTo(props.IntegrationUri, id));
        if (linked) owned.add(otherId);
      }
      const integrations = [...owned].filter(
        (owner) => template.Resources[owner]?.Type === 'AWS::ApiGatewayV2::Integration',
      );
      let routes = 0;
      for (const [routeId, route] of entries) {
        if (
          route.Type === 'AWS::ApiGatewayV2::Route' &&
          integrations.some((integration) => refersTo(route.Properties?.Target, integration))
        ) {
          owned.add(routeId);
          routes += 1;
        }
      }
      // A queue worker: its queue, the queue's DLQ, their policies and alarms.
      let queues = 0;
      for (const owner of [...owned]) {
        const mapping = template.Resources[owner];
        if (mapping?.Type !== 'AWS::Lambda::EventSourceMapping') continue;
        const queue = (mapping.Properties?.EventSourceArn as { 'Fn::GetAtt'?: [string] })?.['Fn::GetAtt']?.[0];
        if (!queue) continue;
        queues += 1;
        const dlq = (
          template.Resources[queue]?.Properties?.RedrivePolicy?.deadLetterTargetArn as {
            'Fn::GetAtt'?: [string];
          }
        )?.['Fn::GetAtt']?.[0];
        for (const queueId of [queue, dlq].filter((value): value is string => value !== undefined)) {
          owned.add(queueId);
          for (const [otherId, other] of entries) {
            const props = other.Properties ?? {};
            if (
              (other.Type === 'AWS::SQS::QueuePolicy' && refersTo(props.Queues, queueId)) ||
              (other.Type === 'AWS::CloudWatch::Alarm' && refersTo(props.Dimensions, queueId))
            ) {
              owned.add(otherId);
            }
          }
        }
      }
      return { id, resources: owned.size, routes, queues };
    });
}
