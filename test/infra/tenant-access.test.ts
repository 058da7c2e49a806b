import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '#infra/aws/build-app';
import { EDGE_CONTEXT, OPTIONS_CONTEXT } from '#infra/aws/configurations';
import { actsForOrganisations, FUNCTIONS } from '#infra/aws/functions';
import type { ServiceStack } from '#infra/aws/stacks/service-stack';
import { ORG, ORG_ID_PATTERN, TENANT_CALLER_TAG, TENANT_SESSION_SECONDS } from '#infra/aws/tenant-access';
import type { GatewayPrincipal } from '#infra/cdk-local/aws-gateway';
import { TemplatePolicies } from '#infra/cdk-local/policies';
import {
  type DeploymentContext,
  physicalResources,
  type Template as TemplateJson,
  TemplateResolver,
} from '#infra/cdk-local/template';
import { LEADING_KEY_PATTERNS } from '#shared/adapters/dynamodb/keys';
import { asArray, flatTemplate, type Json, logicalId, resources, type Statement, testApp } from './support.ts';

/**
 * CONTRACT §25 in the synthesized templates: the stage's tenant-access role is the only principal that reaches an
 * organisation's items, report files, channel tokens and webhook secrets, and only the organisation its session's tag
 * names; the function roles keep what belongs to no organisation; start:cdk's IAM evaluator reads the role as AWS
 * would.
 */
const ORG_A = '0b4c9a52-6d1e-4f7a-9c3b-2e8d5f1a7c60';
const ORG_B = '7f3e2d1c-0b9a-4887-a665-544332211000';

/** The functions that act for no organisation: no table, or their documented partitions only (`tableKeys`). */
const OWN_ROLE_ONLY = [
  'create-console-link',
  'end-console-session',
  'get-console',
  'get-docs',
  'get-health',
  'get-jwks',
  'get-openapi',
  'issue-token',
  'receive-network-webhook',
  'refresh-console-session',
  'route-not-found',
  'start-console-session',
  'verify-network-webhook',
];

/** A partition of an organisation, as a LeadingKeys pattern may name it. */
const ORGANISATION_PARTITION = /^(ORG|ORGSTATUS|ORGCONSOLE|IDEM|RATE)#/;

/** Every statement (Allow and Deny) of the AWS::IAM::Policy resources, with the roles they are attached to. */
function policyStatements(template: Template): { roles: string[]; statement: Statement }[] {
  return resources(template, 'AWS::IAM::Policy').flatMap(([, policy]) =>
    asArray(policy.Properties.PolicyDocument.Statement as Statement[]).map((statement) => ({
      roles: (policy.Properties.Roles as Json[]).map((role) => role.Ref as string),
      statement,
    })),
  );
}

const leadingKeys = (statement: Statement): string[] =>
  Object.values((statement.Condition ?? {}) as Record<string, Record<string, string[]>>).flatMap((block) =>
    asArray(block['dynamodb:LeadingKeys'] ?? []),
  );

const same = (a: readonly string[], b: readonly string[]) =>
  JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

describe('the tenant-access role and the function roles (CONTRACT §25)', () => {
  let stack: ServiceStack;
  let template: Template;
  const fnRole = (name: string) => logicalId(stack.functions.get(name)!.role);
  const envOf = (name: string): Record<string, unknown> =>
    template.toJSON().Resources[logicalId(stack.functions.get(name)!.fn)].Properties.Environment.Variables;
  const tenantRole = () => template.toJSON().Resources[logicalId(stack.tenantAccess.role)].Properties;
  const roleOwners = () => new Map([...stack.functions].map(([name, fn]) => [logicalId(fn.role), name]));

  beforeAll(() => {
    stack = buildApp(testApp(), 'dev');
    template = flatTemplate(stack);
  });

  it('acts for organisations in every function but those that act before a session exists or on no organisation data', () => {
    const own = [...stack.functions.keys()].filter((name) => !actsForOrganisations(FUNCTIONS[name]!.access));

    expect(own.sort()).toEqual(OWN_ROLE_ONLY);
  });

  it("lets no function role reach an organisation's items: every table grant names global partitions, but the documented reads and the console's own", () => {
    const owners = roleOwners();
    const documented = (name: string, statement: Statement) => {
      const actions = asArray(statement.Action);
      const keys = leadingKeys(statement);
      return (
        // Token checks (every verifier, and the console's session routes) read a credential, a status, a session.
        (same(actions, ['dynamodb:GetItem']) && same(keys, LEADING_KEY_PATTERNS.accessStatus)) ||
        (name === 'issue-token' && same(keys, LEADING_KEY_PATTERNS.issueToken)) ||
        (/-console-(link|session)$/.test(name) && same(keys, LEADING_KEY_PATTERNS.console)) ||
        // An authenticated function acting for no organisation counts in its organisation's quota windows itself.
        (OWN_ROLE_ONLY.includes(name) &&
          same(actions, ['dynamodb:UpdateItem']) &&
          same(keys, LEADING_KEY_PATTERNS.requestQuota))
      );
    };
    const tableGrants = policyStatements(template).filter(({ statement }) =>
      asArray(statement.Action).some((action) => action.startsWith('dynamodb:')),
    );

    expect(tableGrants.length).toBeGreaterThan(0);
    for (const { roles, statement } of tableGrants) {
      const name = owners.get(roles[0]!) ?? roles[0]!;
      expect(leadingKeys(statement).length, `${name} ${JSON.stringify(statement.Action)}`).toBeGreaterThan(0);
      if (leadingKeys(statement).some((key) => ORGANISATION_PARTITION.test(key))) {
        expect(documented(name, statement), `${name} ${JSON.stringify(statement)}`).toBe(true);
      }
    }
  });

  it('keeps each row’s global partitions global', () => {
    for (const [name, row] of Object.entries(FUNCTIONS)) {
      const global = row.access.global ?? {};
      const patterns = [
        ...(global.items ?? []).flatMap((items) => items.keys),
        ...(global.queries ?? []).flatMap((query) => query.partitions),
      ];
      expect(
        patterns.filter((pattern) => ORGANISATION_PARTITION.test(pattern) || !/^[A-Z]+#/.test(pattern)),
        name,
      ).toEqual([]);
    }
  });

  it('lets no function role reach report files, channel tokens or the webhook secrets key', () => {
    const roles = new Set([...roleOwners().keys(), logicalId(stack.jwtKeys.manager.role)]);
    const reach = policyStatements(template)
      .filter(({ roles: attached }) => attached.some((role) => roles.has(role)))
      .map(({ statement }) => statement)
      .filter((statement) => {
        const resource = JSON.stringify(statement.Resource);
        return (
          asArray(statement.Action).some((action) => /^(s3|kms):/.test(action)) ||
          resource.includes(logicalId(stack.data.reports)) ||
          resource.includes(logicalId(stack.webhookSecretsKey)) ||
          resource.includes('/channels/')
        );
      });

    expect(reach).toEqual([]);
  });

  it('gives every function acting for organisations the role ARN, AssumeRole and TagSession (tag org only) on that role alone, and the caller tag; no other role any of them', () => {
    const tenantArn = { 'Fn::GetAtt': [logicalId(stack.tenantAccess.role), 'Arn'] };
    const owners = roleOwners();
    const stsGrants = policyStatements(template).filter(({ statement }) =>
      asArray(statement.Action).some((action) => action.startsWith('sts:')),
    );
    const tagged = resources(template, 'AWS::IAM::Role')
      .filter(([, role]) => (role.Properties.Tags ?? []).some((tag: Json) => tag.Key === TENANT_CALLER_TAG))
      .map(([id, role]) => [owners.get(id) ?? id, role.Properties.Tags] as const);
    const actingFor = [...stack.functions.keys()].filter((name) => !OWN_ROLE_ONLY.includes(name));

    expect(tagged.map(([name]) => name).sort()).toEqual(actingFor.sort());
    for (const [name, tags] of tagged) expect(tags, name).toEqual([{ Key: TENANT_CALLER_TAG, Value: 'dev' }]);
    expect(new Set(stsGrants.flatMap(({ roles }) => roles.map((role) => owners.get(role))))).toEqual(
      new Set(actingFor),
    );
    for (const name of actingFor) {
      expect(envOf(name).TENANT_ACCESS_ROLE_ARN, name).toEqual(tenantArn);
      expect(
        stsGrants.filter(({ roles }) => roles.includes(fnRole(name))).map(({ statement }) => statement),
        name,
      ).toEqual([
        { Effect: 'Allow', Action: 'sts:AssumeRole', Resource: tenantArn },
        {
          Effect: 'Allow',
          Action: 'sts:TagSession',
          Resource: tenantArn,
          Condition: { 'ForAllValues:StringEquals': { 'aws:TagKeys': ['org'] } },
        },
      ]);
    }
    for (const name of OWN_ROLE_ONLY) expect(envOf(name).TENANT_ACCESS_ROLE_ARN, name).toBeUndefined();
  });

  it('trusts the account’s roles tagged as this stage’s functions, for a session named org-<orgId> with the one tag org=<orgId>, never transitive, for an hour at most', () => {
    const role = tenantRole();
    const root = {
      AWS: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root']] },
    };
    const caller = { StringEquals: { [`aws:PrincipalTag/${TENANT_CALLER_TAG}`]: 'dev' } };

    expect(role.MaxSessionDuration).toBe(TENANT_SESSION_SECONDS);
    expect(role.AssumeRolePolicyDocument.Statement).toEqual([
      {
        Effect: 'Allow',
        Principal: root,
        Action: 'sts:AssumeRole',
        Condition: {
          ...caller,
          StringLike: { 'aws:RequestTag/org': ORG_ID_PATTERN, 'sts:RoleSessionName': `org-${ORG_ID_PATTERN}` },
        },
      },
      {
        Effect: 'Allow',
        Principal: root,
        Action: 'sts:TagSession',
        Condition: {
          ...caller,
          StringLike: { 'aws:RequestTag/org': ORG_ID_PATTERN },
          'ForAllValues:StringEquals': { 'aws:TagKeys': ['org'] },
          Null: { 'sts:TransitiveTagKeys': 'true' },
        },
      },
    ]);
  });

  it('names the organisation only through the session tag, names no resource with a bare *, and denies everything to a session without the tag', () => {
    const statements = tenantRole().Policies.flatMap(
      (policy: Json) => policy.PolicyDocument.Statement,
    ) as (Statement & {
      Sid: string;
    })[];
    const allows = statements.filter((statement) => statement.Effect === 'Allow');
    const text = (statement: Statement) => JSON.stringify([statement.Resource, statement.Condition ?? {}]);

    expect(statements.map((statement) => statement.Sid)).toEqual([
      'OrganisationItems',
      'OrganisationQueries',
      'OrganisationReportFiles',
      'OrganisationReportListing',
      'OrganisationChannelTokens',
      'OrganisationWebhookSecrets',
      'NothingWithoutAnOrganisation',
    ]);
    for (const statement of allows) {
      expect(text(statement), statement.Sid).toContain(ORG);
      expect(asArray(statement.Resource as string).includes('*'), statement.Sid).toBe(false);
      expect(
        asArray(statement.Action).filter((action) => action.includes('*')),
        statement.Sid,
      ).toEqual([]);
    }
    expect(statements.at(-1)).toEqual({
      Sid: 'NothingWithoutAnOrganisation',
      Effect: 'Deny',
      Action: '*',
      Resource: '*',
      Condition: { Null: { 'aws:PrincipalTag/org': 'true' } },
    });
  });

  it('tags the prod stage’s function roles and trusts them there, not dev’s', () => {
    const prod = buildApp(testApp(EDGE_CONTEXT), 'prod');
    const prodTemplate = flatTemplate(prod).toJSON();
    const role = prodTemplate.Resources[logicalId(prod.tenantAccess.role)].Properties;
    const tags = prodTemplate.Resources[logicalId(prod.functions.get('list-groups')!.role)].Properties.Tags;

    expect(tags).toEqual([{ Key: TENANT_CALLER_TAG, Value: 'prod' }]);
    for (const statement of role.AssumeRolePolicyDocument.Statement) {
      expect(statement.Condition.StringEquals).toEqual({ [`aws:PrincipalTag/${TENANT_CALLER_TAG}`]: 'prod' });
    }
  });
});

describe('start:cdk on the tenant-access role of the synthesized template', () => {
  const ACCOUNT = '000000000000';
  const REGION = 'eu-west-1';
  let stack: ServiceStack;
  let policies: TemplatePolicies;
  let tableName: string;
  let tenantArn: string;
  let sessions = 0;

  beforeAll(() => {
    stack = buildApp(testApp(), 'dev');
    const flat = flatTemplate(stack).toJSON() as TemplateJson;
    const ctx: DeploymentContext = {
      stackName: stack.stackName,
      region: REGION,
      account: ACCOUNT,
      awsEndpoint: 'http://127.0.0.1:1',
      apiOrigin: 'http://127.0.0.1:1',
    };
    const physical = physicalResources(flat, ctx);
    policies = new TemplatePolicies(flat, new TemplateResolver(ctx, physical), physical, {
      defaultRegion: REGION,
      account: ACCOUNT,
    });
    tableName = physical.get(logicalId(stack.data.table))!.ref;
    tenantArn = physical.get(logicalId(stack.tenantAccess.role))!.attributes.Arn!;
  });

  const accessKey = () => {
    sessions += 1;
    return `ASIA${String(sessions).padStart(16, '0')}`;
  };
  const signed = (accessKeyId: string, service: string, body: string, headers: Record<string, string>) => ({
    method: 'POST',
    path: '/',
    body: Buffer.from(body),
    headers: {
      host: '127.0.0.1:4566',
      'x-amz-date': '20260301T100000Z',
      authorization: `AWS4-HMAC-SHA256 Credential=${accessKeyId}/20260301/${REGION}/${service}/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc`,
      ...headers,
    },
  });
  /** Whether IAM allows every authorization of the call `principal` signs. */
  const allowed = (principal: GatewayPrincipal, http: ReturnType<typeof signed>) => {
    const described = policies.describe(http);
    if ('error' in described) throw new Error(described.error);
    return described.authorizations.every((authorization) => policies.authorize(principal, authorization).allowed);
  };
  const functionSession = (name: string) => {
    const accessKeyId = accessKey();
    return { accessKeyId, principal: policies.sessionFor(logicalId(stack.functions.get(name)!.fn), accessKeyId, name) };
  };
  const assume = (
    caller: { accessKeyId: string; principal: GatewayPrincipal },
    org: string,
    sessionName = `org-${org}`,
  ) => {
    const form = { Action: 'AssumeRole', Version: '2011-06-15', RoleArn: tenantArn, RoleSessionName: sessionName };
    const body = new URLSearchParams({ ...form, 'Tags.member.1.Key': 'org', 'Tags.member.1.Value': org }).toString();
    const http = signed(caller.accessKeyId, 'sts', body, { 'content-type': 'application/x-www-form-urlencoded' });
    if (!allowed(caller.principal, http)) return undefined;
    const accessKeyId = accessKey();
    const request = { roleArn: tenantArn, roleSessionName: sessionName, tags: [{ key: 'org', value: org }] };
    const issued = policies.assumeRole(
      caller.principal,
      { ...request, transitiveTagKeys: [] },
      accessKeyId,
      new Date(),
    );
    return { accessKeyId, principal: issued.principal };
  };
  const dynamo = (operation: string, body: Json) => (accessKeyId: string) =>
    signed(accessKeyId, 'dynamodb', JSON.stringify({ TableName: tableName, ...body }), {
      'x-amz-target': `DynamoDB_20120810.${operation}`,
    });
  const getOrg = (org: string) => dynamo('GetItem', { Key: { PK: { S: `ORG#${org}` }, SK: { S: 'ORG' } } });
  const queryGroups = (org: string) =>
    dynamo('Query', {
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': { S: `ORG#${org}#GROUPS` } },
    });
  const can = (
    session: { accessKeyId: string; principal: GatewayPrincipal },
    call: (key: string) => ReturnType<typeof signed>,
  ) => allowed(session.principal, call(session.accessKeyId));

  it("lets a function assume it for an organisation and reach that organisation's items and index partitions, not another's", () => {
    const tenant = assume(functionSession('list-groups'), ORG_A)!;

    expect(tenant).toBeDefined();
    expect(can(tenant, getOrg(ORG_A))).toBe(true);
    expect(can(tenant, queryGroups(ORG_A))).toBe(true);
    expect(can(tenant, getOrg(ORG_B))).toBe(false);
    expect(can(tenant, queryGroups(ORG_B))).toBe(false);
  });

  it("refuses the function's own role an organisation's items", () => {
    const own = functionSession('list-groups');

    expect(can(own, getOrg(ORG_A))).toBe(false);
    expect(can(own, queryGroups(ORG_A))).toBe(false);
  });

  it('refuses a function that acts for no organisation, and a session not named org-<orgId>', () => {
    expect(assume(functionSession('issue-token'), ORG_A)).toBeUndefined();
    expect(assume(functionSession('list-groups'), ORG_A, 'list-groups')).toBeUndefined();
  });
});

describe('the fault switch', () => {
  it.each([
    ['dev', {}],
    ['prod', { ...EDGE_CONTEXT, ...OPTIONS_CONTEXT }],
  ] as const)('is set in no function environment of the %s stage', (stage, context) => {
    const template = flatTemplate(buildApp(testApp(context), stage));

    const names = resources(template, 'AWS::Lambda::Function').flatMap(([, fn]) =>
      Object.keys(fn.Properties.Environment?.Variables ?? {}),
    );

    expect(names.length).toBeGreaterThan(100);
    expect(names.filter((name) => name.startsWith('WPCRM_FAULT') || name.startsWith('WPCRM_TEST_FAULTS'))).toEqual([]);
  });
});
