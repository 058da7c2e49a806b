import { createHash } from 'node:crypto';

/** A CloudFormation template as `cdk synth` writes it (only what the runner reads). */
export interface Template {
  Resources: Record<string, TemplateResource>;
  Outputs?: Record<string, { Value: unknown; Description?: string }>;
}

export interface TemplateResource {
  Type: string;
  // biome-ignore lint/suspicious/noExplicitAny: template properties are free-form JSON, read per resource type
  Properties?: Record<string, any>;
  DependsOn?: string | string[];
  Metadata?: Record<string, unknown>;
}

/** What `Ref` and `Fn::GetAtt` give for one deployed resource. */
export interface PhysicalResource {
  ref: string;
  attributes: Record<string, string>;
}

export interface DeploymentContext {
  stackName: string;
  region: string;
  account: string;
  /** The AWS gateway's base URL: queue URLs point at it. */
  awsEndpoint: string;
  /** The local HTTP API's origin, e.g. http://127.0.0.1:3000 (the API's `ApiEndpoint`). */
  apiOrigin: string;
}

const PARTITION = 'aws';

/**
 * A name as CloudFormation generates it (`<stack>-<logicalId>-<suffix>`), but derived from the stack and logical id
 * only, so that a restart over the same data directory finds the same table, queues and secrets.
 */
export function generatedName(ctx: DeploymentContext, logicalId: string, maxLength = 64): string {
  const suffix = createHash('sha256').update(`${ctx.stackName}/${logicalId}`).digest('hex').slice(0, 12).toUpperCase();
  const head = `${ctx.stackName}-${logicalId}`.slice(0, maxLength - suffix.length - 1);
  return `${head}-${suffix}`;
}

const arn = (ctx: DeploymentContext, service: string, resource: string, region = ctx.region, account = ctx.account) =>
  `arn:${PARTITION}:${service}:${region}:${account}:${resource}`;

/**
 * The physical identity of every resource of the template, decided before anything runs (custom resources excepted:
 * their handler decides theirs). Types the runner does not model still get a stable `Ref`.
 */
export function physicalResources(template: Template, ctx: DeploymentContext): Map<string, PhysicalResource> {
  const physical = new Map<string, PhysicalResource>();
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    physical.set(logicalId, physicalResource(ctx, logicalId, resource));
  }
  // A rule's ARN names its bus unless it is on the default bus.
  const resolver = new TemplateResolver(ctx, physical);
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    if (resource.Type !== 'AWS::Events::Rule') continue;
    const entry = physical.get(logicalId)!;
    const bus = resource.Properties?.EventBusName ? String(resolver.resolve(resource.Properties.EventBusName)) : '';
    const busName = bus.startsWith('arn:') ? bus.split('/').pop()! : bus;
    entry.attributes.Arn = arn(
      ctx,
      'events',
      `rule/${busName && busName !== 'default' ? `${busName}/` : ''}${entry.ref}`,
    );
  }
  return physical;
}

/** One resource's physical identity, by type (a rule's ARN is added once every bus is known). */
function physicalResource(ctx: DeploymentContext, logicalId: string, resource: TemplateResource): PhysicalResource {
  const props = resource.Properties ?? {};
  const name = (max?: number) => generatedName(ctx, logicalId, max);
  switch (resource.Type) {
    case 'AWS::DynamoDB::GlobalTable':
    case 'AWS::DynamoDB::Table': {
      const table = props.TableName ?? name(255);
      return { ref: table, attributes: { Arn: arn(ctx, 'dynamodb', `table/${table}`) } };
    }
    case 'AWS::S3::Bucket': {
      const bucket = props.BucketName ?? name(63).toLowerCase();
      return {
        ref: bucket,
        attributes: {
          Arn: `arn:${PARTITION}:s3:::${bucket}`,
          DomainName: `${bucket}.s3.amazonaws.com`,
          RegionalDomainName: `${bucket}.s3.${ctx.region}.amazonaws.com`,
        },
      };
    }
    case 'AWS::SQS::Queue': {
      const queue = props.QueueName ?? name(80);
      const url = `${ctx.awsEndpoint}/${ctx.account}/${queue}`;
      return { ref: url, attributes: { Arn: arn(ctx, 'sqs', queue), QueueName: queue, QueueUrl: url } };
    }
    case 'AWS::Events::EventBus': {
      const bus = props.Name ?? name();
      return { ref: bus, attributes: { Arn: arn(ctx, 'events', `event-bus/${bus}`), Name: bus } };
    }
    case 'AWS::IAM::Role': {
      const role = props.RoleName ?? name(64);
      return { ref: role, attributes: { Arn: `arn:${PARTITION}:iam::${ctx.account}:role/${role}`, RoleId: role } };
    }
    case 'AWS::Lambda::Function': {
      const fn = props.FunctionName ?? name(64);
      return { ref: fn, attributes: { Arn: arn(ctx, 'lambda', `function:${fn}`) } };
    }
    case 'AWS::Logs::LogGroup': {
      const group = props.LogGroupName ?? name(512);
      return { ref: group, attributes: { Arn: arn(ctx, 'logs', `log-group:${group}:*`) } };
    }
    case 'AWS::SecretsManager::Secret': {
      const secret = props.Name ?? `${logicalId}-${name().slice(-12)}`;
      const secretArn = arn(ctx, 'secretsmanager', `secret:${secret}-${hashSuffix(secret)}`);
      return { ref: secretArn, attributes: { Id: secretArn } };
    }
    case 'AWS::SSM::Parameter': {
      const parameter = props.Name ?? `CFN-${logicalId}-${name().slice(-12)}`;
      return { ref: parameter, attributes: { Type: props.Type ?? 'String', Value: String(props.Value ?? '') } };
    }
    case 'AWS::KMS::Key': {
      const keyId = uuidFrom(`${ctx.stackName}/${logicalId}`);
      return { ref: keyId, attributes: { Arn: arn(ctx, 'kms', `key/${keyId}`), KeyId: keyId } };
    }
    case 'AWS::SNS::Topic': {
      const topic = props.TopicName ?? name(256);
      const topicArn = arn(ctx, 'sns', topic);
      return { ref: topicArn, attributes: { TopicArn: topicArn, TopicName: topic } };
    }
    case 'AWS::ApiGatewayV2::Api': {
      const apiId = createHash('sha256').update(`${ctx.stackName}/${logicalId}`).digest('hex').slice(0, 10);
      return { ref: apiId, attributes: { ApiId: apiId, ApiEndpoint: ctx.apiOrigin } };
    }
    case 'AWS::Events::Rule': {
      const rule = props.Name ?? name();
      return { ref: rule, attributes: {} }; // Arn needs the bus: physicalResources adds it
    }
    default:
      return { ref: name(), attributes: {} };
  }
}

/**
 * Resolves CloudFormation intrinsic functions against the deployed resources: Ref, Fn::GetAtt, Fn::Join, Fn::Sub,
 * Fn::Select, Fn::Split and the pseudo parameters. Anything else is an error that names the function.
 */
export class TemplateResolver {
  constructor(
    private readonly ctx: DeploymentContext,
    private readonly physical: Map<string, PhysicalResource>,
  ) {}

  resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.resolve(item)).filter((item) => item !== NO_VALUE);
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 1) {
      const [key, argument] = entries[0]!;
      if (key === 'Ref') return this.#ref(String(argument));
      if (key === 'Fn::GetAtt') return this.#getAtt(argument);
      if (key === 'Fn::Join') {
        const [separator, parts] = argument as [string, unknown[]];
        return (this.resolve(parts) as unknown[]).map(String).join(separator);
      }
      if (key === 'Fn::Sub') return this.#sub(argument);
      if (key === 'Fn::Select') {
        const [index, list] = argument as [unknown, unknown];
        return (this.resolve(list) as unknown[])[Number(this.resolve(index))];
      }
      if (key === 'Fn::Split') {
        const [separator, source] = argument as [string, unknown];
        return String(this.resolve(source)).split(separator);
      }
      if (key.startsWith('Fn::')) throw new Error(`the local runner does not support ${key}`);
    }
    const out: Record<string, unknown> = {};
    for (const [key, item] of entries) {
      const resolved = this.resolve(item);
      if (resolved !== NO_VALUE) out[key] = resolved;
    }
    return out;
  }

  /** The resolved value as a string (e.g. an environment variable). */
  string(value: unknown): string {
    const resolved = this.resolve(value);
    return typeof resolved === 'string' ? resolved : JSON.stringify(resolved);
  }

  #pseudo(name: string): string | typeof NO_VALUE | undefined {
    switch (name) {
      case 'AWS::Region':
        return this.ctx.region;
      case 'AWS::AccountId':
        return this.ctx.account;
      case 'AWS::Partition':
        return PARTITION;
      case 'AWS::URLSuffix':
        return 'amazonaws.com';
      case 'AWS::StackName':
        return this.ctx.stackName;
      case 'AWS::StackId':
        return arn(this.ctx, 'cloudformation', `stack/${this.ctx.stackName}/${uuidFrom(this.ctx.stackName)}`);
      case 'AWS::NoValue':
        return NO_VALUE;
      default:
        return undefined;
    }
  }

  #ref(name: string) {
    const pseudo = this.#pseudo(name);
    if (pseudo !== undefined) return pseudo;
    const resource = this.physical.get(name);
    if (!resource) throw new Error(`Ref to unknown resource or parameter ${name}`);
    return resource.ref;
  }

  #getAtt(argument: unknown): string {
    const [logicalId, attribute] = Array.isArray(argument) ? argument : String(argument).split('.');
    const resource = this.physical.get(String(logicalId));
    if (!resource) throw new Error(`Fn::GetAtt of unknown resource ${logicalId}`);
    const value = resource.attributes[String(attribute)];
    if (value === undefined) throw new Error(`Fn::GetAtt ${logicalId}.${attribute} is not known locally`);
    return value;
  }

  #sub(argument: unknown): string {
    const [text, variables] = typeof argument === 'string' ? [argument, {}] : (argument as [string, object]);
    const bound = this.resolve(variables) as Record<string, unknown>;
    return text.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
      if (name.startsWith('!')) return `\${${name.slice(1)}}`;
      if (name in bound) return String(bound[name]);
      if (name.includes('.')) return this.#getAtt(name);
      return String(this.#ref(name));
    });
  }
}

const NO_VALUE = Symbol('AWS::NoValue');

function hashSuffix(value: string): string {
  return createHash('sha256').update(value).digest('base64url').replace(/[-_]/g, 'x').slice(0, 6);
}

function uuidFrom(value: string): string {
  const hex = createHash('sha256').update(value).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
