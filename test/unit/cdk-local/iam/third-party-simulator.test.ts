// biome-ignore-all lint/suspicious/noTemplateCurlyInString: IAM policy variables are plain strings here
import { runSimulation, type Simulation } from '@cloud-copilot/iam-simulate';
import { describe, expect, it } from 'vitest';
import { authorize, type ContextValue, type PolicyDocument } from '#infra/cdk-local/iam/policy';
import {
  assumeTenantPolicy,
  delegatingKeyPolicy,
  keysOnlyDueListPolicy,
  TENANT_CALLER_TAG,
  tenantAccessPolicy,
  tenantTrustPolicy,
} from '#test/support/tenant-policies';

/**
 * The local evaluator (infra/cdk-local/iam/policy.ts) against a third-party IAM simulator, @cloud-copilot/iam-simulate,
 * on the tenant policies of CONTRACT §25: a generated matrix of keys × session tags × actions × resources (table and
 * indexes, report files and listings, channel secrets, the KMS key with and without its encryption context) and of
 * callers (their caller tag and own policies) × session names × session tags × STS actions on the tenant-access role's
 * trust policy. Every case must get the same answer (allowed, explicitly denied, implicitly denied) from both.
 */
const ACCOUNT = '000000000000';
const REGION = 'eu-west-1';
const TABLE = `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/WpCrm-dev-Table`;
const BUCKET = 'wpcrm-dev-reports';
const KEY = `arn:aws:kms:${REGION}:${ACCOUNT}:key/0d6f3c6e-1111-4222-8333-944455556666`;
const TENANT_ROLE = `arn:aws:iam::${ACCOUNT}:role/WpCrm-dev-TenantAccess`;
const TENANT_SESSION = `arn:aws:sts::${ACCOUNT}:assumed-role/WpCrm-dev-TenantAccess/WpCrm-dev-GroupsFn`;
const A = '0b4c9a52-6d1e-4f7a-9c3b-2e8d5f1a7c60';
const B = '7f3e2d1c-0b9a-4887-a665-544332211000';
const deployment = { account: ACCOUNT, region: REGION, stage: 'dev', tableArn: TABLE, bucket: BUCKET, keyArn: KEY };
const tenant = tenantAccessPolicy(deployment);

type Answer = 'Allowed' | 'ExplicitlyDenied' | 'ImplicitlyDenied';

interface Case {
  name: string;
  principal: string;
  action: string;
  resource: string;
  context: Record<string, ContextValue>;
  identity: PolicyDocument[];
  resourcePolicy?: PolicyDocument;
}

function local(test: Case): Answer {
  const result = authorize({
    identityPolicies: test.identity,
    resourcePolicy: test.resourcePolicy,
    principalArn: test.principal,
    request: { action: test.action, resource: test.resource, context: test.context },
  });
  if (result.decision === 'allow') return 'Allowed';
  return result.reason === 'explicit-deny' ? 'ExplicitlyDenied' : 'ImplicitlyDenied';
}

/**
 * iam-simulate's answer, and the context keys its input check dropped (keys it does not know for the action). Its check
 * knows keys with a variable part only after a `/` (aws:PrincipalTag/<key>), so it drops KMS's
 * kms:EncryptionContext:<key> although the Service Authorization Reference lists kms:EncryptionContext:${key} for
 * Decrypt, Encrypt and GenerateDataKey (and its unchecked engine, runUnsafeSimulation, fails on any key policy).
 */
async function thirdParty(test: Case): Promise<{ answer: Answer | string; dropped: string[] }> {
  const simulation: Simulation = {
    request: {
      principal: test.principal,
      action: test.action,
      resource: { resource: test.resource, accountId: ACCOUNT },
      contextVariables: Object.fromEntries(
        Object.entries(test.context).map(([key, value]) => [
          key,
          Array.isArray(value) ? value.map(String) : String(value),
        ]),
      ),
    },
    identityPolicies: test.identity.map((policy, index) => ({ name: `identity-${index}`, policy })),
    serviceControlPolicies: [],
    resourceControlPolicies: [],
    ...(test.resourcePolicy ? { resourcePolicy: test.resourcePolicy } : {}),
  };
  const result = await runSimulation(simulation, {});
  if (result.resultType === 'error') return { answer: `error: ${JSON.stringify(result.errors)}`, dropped: [] };
  if (result.resultType !== 'single') return { answer: `unexpected ${result.resultType} result`, dropped: [] };
  return { answer: result.overallResult as Answer, dropped: result.result.ignoredContextKeys ?? [] };
}

/** The session tag `org` of the tenant session: organisation A, B, or none. */
const TAGS: (string | undefined)[] = [A, B, undefined];
const sessionContext = (org: string | undefined): Record<string, ContextValue> => ({
  'aws:SecureTransport': true,
  'aws:PrincipalArn': TENANT_ROLE,
  'aws:PrincipalAccount': ACCOUNT,
  ...(org === undefined ? {} : { 'aws:PrincipalTag/org': org }),
});
const tagName = (org: string | undefined) => (org === A ? 'tag A' : org === B ? 'tag B' : 'no tag');

function dynamodbCases(): Case[] {
  const keys = [
    `ORG#${A}`,
    `ORG#${A}#FEED`,
    `ORG#${A}#CHAT#c_1`,
    `ORG#${A}X`,
    `ORG#${B}`,
    `ORG#${B}#GROUPS`,
    `ORGSTATUS#${A}`,
    `ORGSTATUS#${B}`,
    `ORGCONSOLE#${A}`,
    `IDEM#${A}`,
    `IDEM#${B}`,
    `RATE#org-requests#${A}`,
    `RATE#network-calls#${B}`,
    'WAGROUP#120363025246125486',
    'RSC#DUE',
    'JWKS',
  ];
  const itemActions = ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem'];
  const batches = [
    [`ORG#${A}`, `ORG#${A}#FEED`],
    [`ORG#${A}`, `ORG#${B}`],
    [`ORG#${A}`, 'RSC#DUE'],
  ];
  const cases: Case[] = [];
  const add = (org: string | undefined, action: string, resource: string, leading: string[] | undefined) =>
    cases.push({
      name: `${tagName(org)} ${action} ${resource.replace(TABLE, 'table')} ${JSON.stringify(leading ?? 'no leading key')}`,
      principal: TENANT_SESSION,
      action: `dynamodb:${action}`,
      resource,
      context: { ...sessionContext(org), ...(leading ? { 'dynamodb:LeadingKeys': leading } : {}) },
      identity: [tenant],
    });
  for (const org of TAGS) {
    for (const key of keys) {
      for (const action of itemActions) add(org, action, TABLE, [key]);
      for (const resource of [TABLE, `${TABLE}/index/GSI1`, `${TABLE}/index/GSI2`]) add(org, 'Query', resource, [key]);
    }
    for (const batch of batches) {
      for (const action of ['BatchGetItem', 'BatchWriteItem']) add(org, action, TABLE, batch);
    }
    for (const resource of [TABLE, `${TABLE}/index/GSI1`]) add(org, 'Scan', resource, undefined);
  }
  return [...cases, ...dueListCases()];
}

/** A sweeper's own role on its due list: keys only (keysOnlyDueListPolicy), whatever the query asks for. */
function dueListCases(): Case[] {
  const sweeper = keysOnlyDueListPolicy(TABLE, 'GSI1', ['RSC#DUE']);
  const attributeSets: (string[] | undefined)[] = [
    ['PK', 'SK', 'GSI1PK', 'GSI1SK'],
    ['PK', 'SK'],
    ['PK', 'SK', 'recipients'],
    undefined,
  ];
  const cases: Case[] = [];
  for (const partition of ['RSC#DUE', 'RPT#OPEN', `ORG#${A}#GROUPS`]) {
    for (const attributes of attributeSets) {
      for (const select of ['SPECIFIC_ATTRIBUTES', 'ALL_PROJECTED_ATTRIBUTES', 'COUNT']) {
        if (attributes === undefined && select === 'SPECIFIC_ATTRIBUTES') continue;
        cases.push({
          name: `sweeper Query GSI1 ${partition} ${JSON.stringify(attributes ?? 'every attribute')} ${select}`,
          principal: `arn:aws:sts::${ACCOUNT}:assumed-role/WpCrm-dev-ReportScheduleSweeper/sweeper`,
          action: 'dynamodb:Query',
          resource: `${TABLE}/index/GSI1`,
          context: {
            'aws:SecureTransport': true,
            'dynamodb:LeadingKeys': [partition],
            'dynamodb:Select': select,
            ...(attributes ? { 'dynamodb:Attributes': attributes } : {}),
          },
          identity: [sweeper],
        });
      }
    }
  }
  return cases;
}

function s3Cases(): Case[] {
  const objects = [
    `org/${A}/r.csv`,
    `org/${A}/2026/03/r.xlsx`,
    `org/${B}/r.csv`,
    `org/${A}`,
    `org/${A}x/r.csv`,
    'r.csv',
  ];
  const prefixes = [`org/${A}/`, `org/${A}/2026/`, `org/${B}/`, 'org/', undefined];
  const cases: Case[] = [];
  for (const org of TAGS) {
    for (const key of objects) {
      for (const action of ['s3:GetObject', 's3:PutObject', 's3:DeleteObject']) {
        cases.push({
          name: `${tagName(org)} ${action} ${key}`,
          principal: TENANT_SESSION,
          action,
          resource: `arn:aws:s3:::${BUCKET}/${key}`,
          context: sessionContext(org),
          identity: [tenant],
        });
      }
    }
    for (const prefix of prefixes) {
      cases.push({
        name: `${tagName(org)} s3:ListBucket prefix ${prefix ?? '(none)'}`,
        principal: TENANT_SESSION,
        action: 's3:ListBucket',
        resource: `arn:aws:s3:::${BUCKET}`,
        context: { ...sessionContext(org), ...(prefix === undefined ? {} : { 's3:prefix': prefix }) },
        identity: [tenant],
      });
    }
  }
  return cases;
}

function secretAndKeyCases(): Case[] {
  const secret = (stage: string, path: string) =>
    `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:wp-crm/${stage}/channels/${path}-AbC123`;
  const secrets = [
    secret('dev', `${A}/ch_1`),
    secret('dev', `${B}/ch_1`),
    secret('dev', A),
    secret('prod', `${A}/ch_1`),
  ];
  const contexts: Record<string, ContextValue>[] = [
    {
      'kms:EncryptionContext:orgId': A,
      'kms:EncryptionContext:webhookId': 'whk_1',
      'kms:EncryptionContextKeys': ['orgId', 'webhookId'],
    },
    {
      'kms:EncryptionContext:orgId': B,
      'kms:EncryptionContext:webhookId': 'whk_1',
      'kms:EncryptionContextKeys': ['orgId', 'webhookId'],
    },
    { 'kms:EncryptionContext:purpose': 'webhook', 'kms:EncryptionContextKeys': ['purpose'] },
    {},
  ];
  const cases: Case[] = [];
  for (const org of TAGS) {
    for (const resource of secrets) {
      for (const action of ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue']) {
        cases.push({
          name: `${tagName(org)} ${action} ${resource.split(':secret:')[1]}`,
          principal: TENANT_SESSION,
          action,
          resource,
          context: sessionContext(org),
          identity: [tenant],
        });
      }
    }
    for (const context of contexts) {
      for (const action of ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey']) {
        for (const keyPolicy of [delegatingKeyPolicy(ACCOUNT), undefined]) {
          cases.push({
            name: `${tagName(org)} ${action} ${JSON.stringify(context)} ${keyPolicy ? 'key policy' : 'no key policy'}`,
            principal: TENANT_SESSION,
            action,
            resource: KEY,
            context: { ...sessionContext(org), 'kms:CallerAccount': ACCOUNT, ...context },
            identity: [tenant],
            ...(keyPolicy ? { resourcePolicy: keyPolicy } : {}),
          });
        }
      }
    }
  }
  return cases;
}

function stsCases(): Case[] {
  const assumeOnly: PolicyDocument = {
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action: 'sts:AssumeRole', Resource: TENANT_ROLE }],
  };
  // Caller, its role's name, the stage its caller tag names (none: an untagged role), its own policies.
  const callers: [string, string, string | undefined, PolicyDocument[]][] = [
    ['dev function with both actions', 'WpCrm-dev-GroupsFn', 'dev', [assumeTenantPolicy(TENANT_ROLE)]],
    ['dev function with sts:AssumeRole only', 'WpCrm-dev-NoTagFn', 'dev', [assumeOnly]],
    ['dev function without either', 'WpCrm-dev-OtherFn', 'dev', []],
    ['prod function with both actions', 'WpCrm-prod-GroupsFn', 'prod', [assumeTenantPolicy(TENANT_ROLE)]],
    ['untagged role with both actions', 'WpCrm-dev-Untagged', undefined, [assumeTenantPolicy(TENANT_ROLE)]],
  ];
  const tagSets: Record<string, string>[] = [
    { org: A },
    { org: '*' },
    { org: 'not-an-organisation' },
    {},
    { org: A, team: 'x' },
  ];
  const cases: Case[] = [];
  for (const [callerName, role, stage, identity] of callers) {
    for (const tags of tagSets) {
      for (const sessionName of [`org-${A}`, role]) {
        for (const transitive of [[], ['org']]) {
          for (const action of ['sts:AssumeRole', 'sts:TagSession']) {
            const keys = Object.keys(tags);
            cases.push({
              name: `${callerName} ${action} ${sessionName} tags ${JSON.stringify(tags)} transitive ${JSON.stringify(transitive)}`,
              principal: `arn:aws:sts::${ACCOUNT}:assumed-role/${role}/${role}`,
              action,
              resource: TENANT_ROLE,
              context: {
                'aws:SecureTransport': true,
                'aws:PrincipalArn': `arn:aws:iam::${ACCOUNT}:role/${role}`,
                'aws:PrincipalAccount': ACCOUNT,
                ...(stage ? { [`aws:PrincipalTag/${TENANT_CALLER_TAG}`]: stage } : {}),
                'sts:RoleSessionName': sessionName,
                ...(keys.length > 0 ? { 'aws:TagKeys': keys } : {}),
                ...Object.fromEntries(keys.map((key) => [`aws:RequestTag/${key}`, tags[key]!])),
                ...(transitive.length > 0 ? { 'sts:TransitiveTagKeys': transitive } : {}),
              },
              identity,
              resourcePolicy: tenantTrustPolicy(deployment),
            });
          }
        }
      }
    }
  }
  return cases;
}

describe('the local IAM evaluator and @cloud-copilot/iam-simulate on the tenant policies (CONTRACT §25)', () => {
  it.each([
    ['DynamoDB items, index queries, batches and scans', dynamodbCases],
    ['report files and listings', s3Cases],
    ['channel secrets and the KMS key', secretAndKeyCases],
    ["the tenant-access role's trust policy", stsCases],
  ])('agree on %s', async (_name, generate) => {
    const cases = generate();
    const disagreements: string[] = [];
    const dropped = new Set<string>();
    const answers = new Set<string>();
    for (const test of cases) {
      const theirs = await thirdParty(test);
      for (const key of theirs.dropped) dropped.add(`${test.action} ${key}`);
      // Compared on the request the simulator evaluated: without the keys it dropped (the local evaluator's answer
      // with them is asserted in tenant-isolation.test.ts).
      const seen = Object.fromEntries(Object.entries(test.context).filter(([key]) => !theirs.dropped.includes(key)));
      const ours = local({ ...test, context: seen });
      answers.add(ours);
      if (ours !== theirs.answer) disagreements.push(`${test.name}: local ${ours}, iam-simulate ${theirs.answer}`);
    }

    expect(disagreements).toEqual([]);
    // The only keys the simulator's input check dropped: the KMS encryption context (see thirdParty), and
    // sts:RoleSessionName on sts:TagSession (the reference lists it for AssumeRole; no policy here tests it).
    expect(
      [...dropped].filter((entry) => !/ kms:EncryptionContext:|^sts:TagSession sts:RoleSessionName$/.test(entry)),
    ).toEqual([]);
    // The matrix is not one-sided: every answer occurs.
    expect([...answers].sort()).toEqual(
      ['Allowed', 'ExplicitlyDenied', 'ImplicitlyDenied'].filter((answer) =>
        _name.startsWith('the tenant') ? answer !== 'ExplicitlyDenied' : true,
      ),
    );
  });
});
