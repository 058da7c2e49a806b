import type {
  Authorization,
  AuthorizationDecision,
  CallAuthorizer,
  DescribedCall,
  GatewayPrincipal,
} from './aws-gateway.ts';
import { type DescribeContext, describeAwsCall } from './iam/aws-request.ts';
import { authorize, grantedActions, type PolicyDocument, type RequestContext } from './iam/policy.ts';
import type { AssumeRoleRequest } from './iam/sts-service.ts';
import { roleUniqueId, StsError, sessionTerms } from './sts.ts';
import type { PhysicalResource, Template, TemplateResolver, TemplateResource } from './template.ts';

/** The deployment's resources as the request describer needs them (secrets and keys by any of their names). */
export type PolicyContext = Required<Pick<DescribeContext, 'account' | 'defaultRegion'>> &
  Pick<DescribeContext, 'secretArn' | 'kmsKeyArn' | 'kmsKeyArnForCiphertext'>;

interface Role {
  name: string;
  arn: string;
  documents: PolicyDocument[];
  /** The trust policy (`AssumeRolePolicyDocument`): the role's resource policy for `sts:AssumeRole` and `sts:TagSession`. */
  trust?: PolicyDocument;
  /** The role's IAM tags: principal tags of its sessions, unless a session tag of the same key overrides one. */
  tags: Record<string, string>;
  /** `MaxSessionDuration` in seconds (CloudFormation's default: 3,600). */
  maxSessionDuration: number;
}

/** Lambda polls a queue for its event source mapping with the function's role; these it must allow. */
const QUEUE_CONSUMER_ACTIONS = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'];

/**
 * The template's IAM: each function's execution role with every policy attached to it (inline, AWS::IAM::Policy,
 * customer managed), and the resource policies (queue and bucket policies, key policies, Lambda permissions).
 */
export class TemplatePolicies implements CallAuthorizer {
  #roles = new Map<string, Role>();
  /** Function logical id → its role's logical id. */
  #functionRoles = new Map<string, string>();
  #resourcePolicies = new Map<string, PolicyDocument>();
  /** Access key id → the function whose role session it is. */
  #sessions = new Map<string, GatewayPrincipal>();
  #describeContext: DescribeContext;

  constructor(
    template: Template,
    private readonly resolver: TemplateResolver,
    physical: Map<string, PhysicalResource>,
    private readonly ctx: PolicyContext,
  ) {
    const partitionKeys = tablePartitionKeys(template, physical);
    this.#describeContext = {
      ...ctx,
      principalArn: (accessKeyId) => {
        const principal = this.#sessions.get(accessKeyId);
        return principal ? this.#sessionArn(principal) : undefined;
      },
      // dynamodb:LeadingKeys needs each table's (and index's) partition key name (issue 19.2: without it every
      // LeadingKeys condition held vacuously).
      partitionKeyName: (table, index) => partitionKeys.get(index === undefined ? table : `${table}/index/${index}`),
    };
    const roleIdByName = this.#readRoles(template, physical);
    this.#readPolicies(template, physical, roleIdByName);
  }

  /** Each role with its inline policies; returns the roles' logical ids by their names. */
  #readRoles(template: Template, physical: Map<string, PhysicalResource>): Map<string, string> {
    const roleIdByName = new Map<string, string>();
    for (const [logicalId, resource] of Object.entries(template.Resources)) {
      if (resource.Type !== 'AWS::IAM::Role') continue;
      const own = physical.get(logicalId)!;
      const props = resource.Properties ?? {};
      const inline = (props.Policies ?? []) as { PolicyDocument: unknown }[];
      const tags = (this.resolver.resolve(props.Tags ?? []) as { Key: string; Value: string }[]).map(
        ({ Key, Value }) => [Key, String(Value)],
      );
      this.#roles.set(logicalId, {
        name: own.ref,
        arn: own.attributes.Arn!,
        documents: inline.map((policy) => this.resolver.resolve(policy.PolicyDocument) as PolicyDocument),
        ...(props.AssumeRolePolicyDocument
          ? { trust: this.resolver.resolve(props.AssumeRolePolicyDocument) as PolicyDocument }
          : {}),
        tags: Object.fromEntries(tags),
        maxSessionDuration: Number(this.resolver.resolve(props.MaxSessionDuration ?? 3600)),
      });
      roleIdByName.set(own.ref, logicalId);
    }
    return roleIdByName;
  }

  /** The policies attached to roles, which role each function runs with, and the resource policies. */
  #readPolicies(template: Template, physical: Map<string, PhysicalResource>, roleIdByName: Map<string, string>): void {
    const resourceArn = (id: string) => physical.get(id)?.attributes.Arn;
    for (const [logicalId, resource] of Object.entries(template.Resources)) {
      const props = resource.Properties ?? {};
      switch (resource.Type) {
        case 'AWS::IAM::Policy':
        case 'AWS::IAM::ManagedPolicy': {
          const document = this.resolver.resolve(props.PolicyDocument) as PolicyDocument;
          for (const name of this.resolver.resolve(props.Roles ?? []) as string[]) {
            this.#roles.get(roleIdByName.get(name) ?? '')?.documents.push(document);
          }
          break;
        }
        case 'AWS::Lambda::Function': {
          const roleArn = this.resolver.string(props.Role);
          const roleId = [...this.#roles].find(([, role]) => role.arn === roleArn)?.[0];
          if (roleId) this.#functionRoles.set(logicalId, roleId);
          break;
        }
        case 'AWS::SQS::QueuePolicy':
          for (const url of this.resolver.resolve(props.Queues ?? []) as string[]) {
            this.#addResourcePolicy(
              `arn:aws:sqs:${this.ctx.defaultRegion}:${this.ctx.account}:${url.split('/').pop()}`,
              props.PolicyDocument,
            );
          }
          break;
        case 'AWS::S3::BucketPolicy':
          this.#addResourcePolicy(`arn:aws:s3:::${this.resolver.string(props.Bucket)}`, props.PolicyDocument);
          break;
        case 'AWS::KMS::Key':
          if (props.KeyPolicy) this.#addResourcePolicy(resourceArn(logicalId)!, props.KeyPolicy);
          break;
        case 'AWS::Lambda::Permission':
          this.#addPermission(props);
          break;
      }
    }
  }

  /** A Lambda permission: one statement of the function's resource policy. */
  #addPermission(props: NonNullable<TemplateResource['Properties']>): void {
    const resolved = this.resolver.resolve(props) as {
      Action: string;
      FunctionName: string;
      Principal: string;
      SourceArn?: string;
    };
    const functionArn = resolved.FunctionName.startsWith('arn:')
      ? resolved.FunctionName
      : `arn:aws:lambda:${this.ctx.defaultRegion}:${this.ctx.account}:function:${resolved.FunctionName}`;
    const principal = resolved.Principal.endsWith('.amazonaws.com')
      ? { Service: resolved.Principal }
      : { AWS: resolved.Principal };
    this.#addStatement(functionArn, {
      Effect: 'Allow',
      Principal: principal,
      Action: resolved.Action,
      Resource: functionArn,
      ...(resolved.SourceArn ? { Condition: { ArnLike: { 'AWS:SourceArn': resolved.SourceArn } } } : {}),
    });
  }

  /** The role session a function's processes sign with `accessKeyId`. */
  sessionFor(functionId: string, accessKeyId: string, sessionName: string): GatewayPrincipal {
    const principal = { id: functionId, roleName: this.#role(functionId).name, sessionName };
    this.#sessions.set(accessKeyId, principal);
    return principal;
  }

  /**
   * A session of a role of the template that no function runs with: the operator's (`wpcrm` under start:cdk acts as
   * the role an operator assumes on AWS). Its calls are checked and reported under `operator:<role's logical id>`.
   */
  sessionForRole(roleId: string, accessKeyId: string, sessionName: string): GatewayPrincipal {
    const role = this.#roles.get(roleId);
    if (!role) throw new Error(`the template has no role ${roleId}`);
    const principal = { id: `operator:${roleId}`, roleId, roleName: role.name, sessionName };
    this.#sessions.set(accessKeyId, principal);
    return principal;
  }

  /**
   * STS `AssumeRole`, after IAM allowed `sts:AssumeRole` (and `sts:TagSession`) on the role: the session of the role
   * named by `request.roleArn` that `accessKeyId` signs for, with its session tags (the caller's transitive tags
   * first) as `aws:PrincipalTag/<key>`, expiring after `DurationSeconds`. Its calls are reported under
   * `<caller>@<role's logical id>`.
   */
  assumeRole(caller: GatewayPrincipal, request: AssumeRoleRequest, accessKeyId: string, now: Date) {
    const found = [...this.#roles].find(([, role]) => role.arn === request.roleArn);
    if (!found) {
      throw new StsError('AccessDenied', `Not authorized to perform sts:AssumeRole on ${request.roleArn}`, 403);
    }
    const [roleId, role] = found;
    const terms = sessionTerms(request, role, caller);
    const principal: GatewayPrincipal = {
      id: `${caller.ledgerId ?? caller.id}@${roleId}`,
      roleId,
      roleName: role.name,
      sessionName: request.roleSessionName,
      tags: terms.tags,
      transitiveTags: terms.transitiveTags,
      chained: true,
      issuedAt: now.getTime(),
      expiresAt: now.getTime() + terms.durationSeconds * 1000,
    };
    this.#sessions.set(accessKeyId, principal);
    return {
      principal,
      arn: this.#sessionArn(principal),
      assumedRoleId: `${roleUniqueId(role.arn)}:${request.roleSessionName}`,
      granted: grantedActions(role.documents),
    };
  }

  /** The session's ARN and `aws:userid` (`<role id>:<session name>`). */
  identityOf(principal: GatewayPrincipal): { arn: string; userId: string } {
    return {
      arn: this.#sessionArn(principal),
      userId: `${roleUniqueId(this.#roleOf(principal).arn)}:${principal.sessionName}`,
    };
  }

  grantedPairs(functionId: string): string[] {
    return grantedActions(this.#role(functionId).documents);
  }

  grantedPairsOfRole(roleId: string): string[] {
    return grantedActions(this.#roles.get(roleId)?.documents ?? []);
  }

  describe(http: {
    method: string;
    path: string;
    headers: Record<string, string>;
    body: Buffer;
  }): DescribedCall | { error: string } {
    return describeAwsCall(http, this.#describeContext);
  }

  authorize(principal: GatewayPrincipal, authorization: Authorization): AuthorizationDecision {
    const role = this.#roleOf(principal);
    const context = { ...authorization.context, ...this.#principalContext(principal, role) };
    return this.#decide(role, { ...authorization, context }, this.#sessionArn(principal));
  }

  #roleOf(principal: GatewayPrincipal): Role {
    const role = principal.roleId === undefined ? this.#role(principal.id) : this.#roles.get(principal.roleId);
    if (!role) throw new Error(`the template has no role ${principal.roleId}`);
    return role;
  }

  /**
   * The condition keys the caller's session brings to every request: `aws:PrincipalTag/<key>` (the role's tags, then
   * the session's, which override a role tag of the same key whatever its case), `aws:userid`, and for a session
   * made by AssumeRole `aws:TokenIssueTime` (IAM User Guide, "AWS global condition context keys").
   */
  #principalContext(principal: GatewayPrincipal, role: Role): RequestContext {
    const tags = new Map<string, [string, string]>();
    for (const [key, value] of [...Object.entries(role.tags), ...Object.entries(principal.tags ?? {})]) {
      tags.set(key.toLowerCase(), [key, value]);
    }
    return {
      ...Object.fromEntries([...tags.values()].map(([key, value]) => [`aws:PrincipalTag/${key}`, value])),
      'aws:userid': `${roleUniqueId(role.arn)}:${principal.sessionName}`,
      ...(principal.issuedAt === undefined
        ? {}
        : { 'aws:TokenIssueTime': new Date(principal.issuedAt).toISOString().replace(/\.\d{3}Z$/, 'Z') }),
    };
  }

  /** Whether a function's role may invoke another function (the custom-resource framework does). */
  allowsInvoke(functionId: string, targetArn: string): boolean {
    const roleId = this.#functionRoles.get(functionId);
    const role = roleId ? this.#roles.get(roleId) : undefined;
    return role
      ? this.#decide(role, { action: 'lambda:InvokeFunction', resource: targetArn, context: {} }, role.arn).allowed
      : false;
  }

  /** The queue-polling actions a function's role lacks for its event source mapping; the ones it has count as used. */
  missingQueueConsumerActions(functionId: string, queueArn: string): { missing: string[]; matchedGrants: string[] } {
    const role = this.#role(functionId);
    const missing: string[] = [];
    const matchedGrants: string[] = [];
    for (const action of QUEUE_CONSUMER_ACTIONS) {
      const decision = this.#decide(role, { action, resource: queueArn, context: {} }, role.arn);
      if (decision.allowed) matchedGrants.push(...decision.matchedGrants);
      else missing.push(action);
    }
    return { missing, matchedGrants };
  }

  /** Whether an AWS service may act on a resource for `sourceArn` under the resource's policy (no identity policy). */
  serviceMay(service: string, action: string, resourceArn: string, sourceArn: string): boolean {
    const result = authorize({
      identityPolicies: [],
      resourcePolicy: this.#resourcePolicies.get(resourceArn),
      principal: { service },
      request: { action, resource: resourceArn, context: { 'aws:SourceArn': sourceArn, 'aws:SecureTransport': true } },
    });
    return result.decision === 'allow';
  }

  #decide(role: Role, authorization: Authorization, callerArn: string): AuthorizationDecision {
    const result = authorize({
      identityPolicies: role.documents,
      resourcePolicy: authorization.action.toLowerCase().startsWith('sts:')
        ? [...this.#roles.values()].find((target) => target.arn === authorization.resource)?.trust
        : this.#resourcePolicyFor(authorization.resource),
      principal: { arn: callerArn },
      request: { ...authorization, context: authorization.context as RequestContext },
    });
    return {
      allowed: result.decision === 'allow',
      explicitDenyIn: result.reason === 'explicit-deny' ? result.deniedBy : undefined,
      matchedGrants: result.matchedGrants ?? [],
    };
  }

  #resourcePolicyFor(resource: string): PolicyDocument | undefined {
    if (resource.startsWith('arn:aws:s3:::')) {
      return this.#resourcePolicies.get(`arn:aws:s3:::${resource.slice('arn:aws:s3:::'.length).split('/')[0]}`);
    }
    return this.#resourcePolicies.get(resource);
  }

  #sessionArn(principal: GatewayPrincipal): string {
    return `arn:aws:sts::${this.ctx.account}:assumed-role/${principal.roleName}/${principal.sessionName}`;
  }

  #role(functionId: string): Role {
    const role = this.#roles.get(this.#functionRoles.get(functionId) ?? '');
    if (!role) throw new Error(`function ${functionId} has no execution role in the template`);
    return role;
  }

  #addResourcePolicy(arn: string, document: unknown) {
    const resolved = this.resolver.resolve(document) as PolicyDocument;
    for (const statement of ([] as unknown[]).concat(resolved.Statement)) this.#addStatement(arn, statement);
  }

  #addStatement(arn: string, statement: unknown) {
    const policy = this.#resourcePolicies.get(arn) ?? { Version: '2012-10-17', Statement: [] };
    (policy.Statement as unknown[]).push(statement);
    this.#resourcePolicies.set(arn, policy);
  }
}

interface KeySchemaElement {
  AttributeName: string;
  KeyType: string;
}

/** The partition key attribute of every table of the template, by physical name, and of each index (`T/index/I`). */
function tablePartitionKeys(template: Template, physical: Map<string, PhysicalResource>): Map<string, string> {
  const keys = new Map<string, string>();
  const hashOf = (schema: unknown) =>
    (schema as KeySchemaElement[] | undefined)?.find((element) => element.KeyType === 'HASH')?.AttributeName;
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    if (resource.Type !== 'AWS::DynamoDB::Table' && resource.Type !== 'AWS::DynamoDB::GlobalTable') continue;
    const name = physical.get(logicalId)?.ref;
    const props = resource.Properties ?? {};
    const hash = hashOf(props.KeySchema);
    if (!name || !hash) continue;
    keys.set(name, hash);
    for (const index of (props.GlobalSecondaryIndexes ?? []) as { IndexName: string; KeySchema: unknown }[]) {
      const indexHash = hashOf(index.KeySchema);
      if (indexHash) keys.set(`${name}/index/${index.IndexName}`, indexHash);
    }
    for (const index of (props.LocalSecondaryIndexes ?? []) as { IndexName: string }[]) {
      keys.set(`${name}/index/${index.IndexName}`, hash);
    }
  }
  return keys;
}
