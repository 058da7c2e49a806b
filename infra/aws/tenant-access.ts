// biome-ignore-all lint/suspicious/noTemplateCurlyInString: IAM policy variables (${aws:PrincipalTag/org}) are plain strings here
import { consoleKeys, keys, limitKeys } from '#shared/adapters/dynamodb/keys';
import { TABLE_INDEXES } from '#shared/adapters/dynamodb/table';

/**
 * The stage's tenant-access role as IAM documents (CONTRACT §25): a function that acts for an organisation assumes it
 * with the session tag `org=<orgId>`, and the role's permissions name the organisation only through that tag. The
 * CDK construct (constructs/tenant-access.ts) and the evaluator's tests (test/support/tenant-policies.ts) both build
 * from here, so the policies the tests check against IAM's rules are the ones deployed.
 */

/** A statement as IAM writes it, intrinsics resolved or still CDK tokens inside strings. */
export interface PolicyStatementJson {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Principal?: { AWS: string };
  Action: string | string[];
  Resource?: string | string[];
  Condition?: Record<string, Record<string, string | string[]>>;
}

export interface PolicyDocumentJson {
  Version: '2012-10-17';
  Statement: PolicyStatementJson[];
}

/** The session tag naming the organisation a session acts for. */
export const ORG_TAG = 'org';

/** An organisation id (a lowercase UUID) as an IAM StringLike pattern: `?` is one character. */
export const ORG_ID_PATTERN = '????????-????-????-????-????????????';

/** The session's organisation, as a policy variable. */
export const ORG = '${aws:PrincipalTag/org}';

/** `RoleSessionName` of a tenant session: `org-<orgId>`, so CloudTrail names the organisation of every call. */
export const TENANT_SESSION_NAME_PATTERN = `org-${ORG_ID_PATTERN}`;

/**
 * A session lasts one hour at most: a function's own credentials are a role session, so assuming the tenant-access
 * role from them is role chaining, which STS caps at an hour whatever the role allows.
 */
export const TENANT_SESSION_SECONDS = 3600;

/**
 * The IAM tag, with the stage as its value, of every function role that may assume the stage's tenant-access role: its
 * trust policy accepts the account's roles carrying it (generated role names have no prefix to rely on: CloudFormation
 * shortens a nested stack's names), and each such role must also be allowed by its own policy.
 */
export const TENANT_CALLER_TAG = 'wp-crm-tenant-caller';

/** Where the stage's channel token secrets are named: `wp-crm/<stage>/channels/<orgId>/<channelId>`. */
export const channelSecretsPrefix = (stage: string) => `wp-crm/${stage}/channels/`;

/**
 * The organisation's partitions of the table and its indexes, as `dynamodb:LeadingKeys` StringLike patterns: `ORG#<org>`
 * and everything under `ORG#<org>#` (its index partitions included), its status copy, its console partition, its
 * idempotency keys and its rate windows (`RATE#<scope>#<org>`), as shared/adapters/dynamodb/keys.ts builds them.
 */
export const TENANT_LEADING_KEYS = [
  keys.org(ORG).PK,
  `${keys.org(ORG).PK}#*`,
  keys.orgStatus(ORG).PK,
  consoleKeys.partition(ORG),
  limitKeys.idempotencyPartition(ORG),
  `RATE#*#${ORG}`,
];

/**
 * Every item action, batches included. There is no IAM action for a transaction: DynamoDB authorizes each item of
 * TransactWriteItems as PutItem, UpdateItem, DeleteItem or ConditionCheckItem, and of TransactGetItems as GetItem.
 * No Scan: a Scan has no leading key.
 */
export const TENANT_ITEM_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
];

/** What the tenant-access role's permissions name: ARNs, or CDK tokens standing for them. */
export interface TenantResources {
  tableArn: string;
  bucketArn: string;
  keyArn: string;
  /** The channel token secrets' ARN up to the organisation: `arn:…:secret:wp-crm/<stage>/channels/`. */
  channelSecretsArnPrefix: string;
}

const organisationKeys = {
  'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': TENANT_LEADING_KEYS },
  // ForAllValues holds over an empty set: without this, a request with no leading key would pass.
  Null: { 'dynamodb:LeadingKeys': 'false' },
};

/** The tenant-access role's permissions: one organisation's data, the one its session's tag names. */
export function tenantAccessPolicy(resources: TenantResources): PolicyDocumentJson {
  const { tableArn, bucketArn, keyArn, channelSecretsArnPrefix } = resources;
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'OrganisationItems',
        Effect: 'Allow',
        Action: TENANT_ITEM_ACTIONS,
        Resource: tableArn,
        Condition: organisationKeys,
      },
      {
        // On an index the leading key is the index's partition key: its organisation's index partitions only.
        Sid: 'OrganisationQueries',
        Effect: 'Allow',
        Action: 'dynamodb:Query',
        Resource: [tableArn, ...TABLE_INDEXES.map(({ indexName }) => `${tableArn}/index/${indexName}`)],
        Condition: organisationKeys,
      },
      {
        Sid: 'OrganisationReportFiles',
        Effect: 'Allow',
        Action: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
        Resource: `${bucketArn}/org/${ORG}/*`,
      },
      {
        Sid: 'OrganisationReportListing',
        Effect: 'Allow',
        Action: 's3:ListBucket',
        Resource: bucketArn,
        Condition: { StringLike: { 's3:prefix': `org/${ORG}/*` } },
      },
      {
        Sid: 'OrganisationChannelTokens',
        Effect: 'Allow',
        Action: 'secretsmanager:GetSecretValue',
        Resource: `${channelSecretsArnPrefix}${ORG}/*`,
      },
      {
        // Webhook signing secrets are sealed under the context {orgId, webhookId} and nothing else
        // (secretContext, shared/domain/webhooks/subscription.ts).
        Sid: 'OrganisationWebhookSecrets',
        Effect: 'Allow',
        Action: ['kms:Encrypt', 'kms:Decrypt'],
        Resource: keyArn,
        Condition: {
          StringEquals: { 'kms:EncryptionContext:orgId': ORG },
          'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['orgId', 'webhookId'] },
        },
      },
      {
        Sid: 'NothingWithoutAnOrganisation',
        Effect: 'Deny',
        Action: '*',
        Resource: '*',
        Condition: { Null: { [`aws:PrincipalTag/${ORG_TAG}`]: 'true' } },
      },
    ],
  };
}

/**
 * The trust policy's conditions: the caller is a function role of this stage (TENANT_CALLER_TAG), the session is
 * named `org-<orgId>` and tagged `org=<orgId>`, with that one tag, never transitive.
 */
export function tenantTrustConditions(stage: string) {
  const caller = { StringEquals: { [`aws:PrincipalTag/${TENANT_CALLER_TAG}`]: stage } };
  const tag = { [`aws:RequestTag/${ORG_TAG}`]: ORG_ID_PATTERN };
  return {
    assumeRole: { ...caller, StringLike: { ...tag, 'sts:RoleSessionName': TENANT_SESSION_NAME_PATTERN } },
    tagSession: {
      ...caller,
      StringLike: tag,
      'ForAllValues:StringEquals': { 'aws:TagKeys': [ORG_TAG] },
      Null: { 'sts:TransitiveTagKeys': 'true' },
    },
  };
}

/**
 * The trust policy: the account delegates to its roles that carry the stage's caller tag, so each caller also needs
 * `sts:AssumeRole` and `sts:TagSession` on the role in its own policy ({@link assumeTenantStatements}).
 */
export function tenantTrustPolicy(accountRootArn: string, stage: string): PolicyDocumentJson {
  const conditions = tenantTrustConditions(stage);
  const root = { AWS: accountRootArn };
  return {
    Version: '2012-10-17',
    Statement: [
      { Effect: 'Allow', Principal: root, Action: 'sts:AssumeRole', Condition: conditions.assumeRole },
      { Effect: 'Allow', Principal: root, Action: 'sts:TagSession', Condition: conditions.tagSession },
    ],
  };
}

/** What a function role holds to act for its organisations: assuming the role, tagging the session with `org` only. */
export function assumeTenantStatements(tenantRoleArn: string): PolicyStatementJson[] {
  return [
    { Effect: 'Allow', Action: 'sts:AssumeRole', Resource: tenantRoleArn },
    {
      Effect: 'Allow',
      Action: 'sts:TagSession',
      Resource: tenantRoleArn,
      Condition: { 'ForAllValues:StringEquals': { 'aws:TagKeys': [ORG_TAG] } },
    },
  ];
}
