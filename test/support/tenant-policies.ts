import type { PolicyDocument } from '#infra/cdk-local/iam/policy';

/**
 * Tenant-style policies as CONTRACT §25 asks for them, written ahead of the stage's tenant-access role (defined with
 * the per-function infra table): every grant names the organisation only through the session tag
 * `${aws:PrincipalTag/org}`. They are fixtures of the local evaluator's tests and of its comparison with a third-party
 * simulator, and the shape the role's policies are expected to take.
 */
export interface TenantDeployment {
  account: string;
  region: string;
  stage: string;
  tableArn: string;
  bucket: string;
  keyArn: string;
}

/** An organisation id: a lowercase UUID, as the key module's `ORG#` prefixes carry it. */
export const ORG_ID_PATTERN = '????????-????-????-????-????????????';

// biome-ignore lint/suspicious/noTemplateCurlyInString: an IAM policy variable, not a template placeholder
const ORG = '${aws:PrincipalTag/org}';

/**
 * The organisation's partitions (table and indexes), as `dynamodb:LeadingKeys` StringLike patterns: `ORG#<org>` and
 * everything under `ORG#<org>#`, its status copy, its console partition, its idempotency keys and its rate windows
 * (shared/adapters/dynamodb/keys.ts).
 */
export const TENANT_LEADING_KEYS = [
  `ORG#${ORG}`,
  `ORG#${ORG}#*`,
  `ORGSTATUS#${ORG}`,
  `ORGCONSOLE#${ORG}`,
  `IDEM#${ORG}`,
  `RATE#*#${ORG}`,
];

export const TENANT_ITEM_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
];

/** The tenant-access role's permissions. */
export function tenantAccessPolicy(deployment: TenantDeployment): PolicyDocument {
  const { account, region, stage, tableArn, bucket, keyArn } = deployment;
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'OrganisationItemsAndIndexQueries',
        Effect: 'Allow',
        Action: TENANT_ITEM_ACTIONS,
        Resource: [tableArn, `${tableArn}/index/*`],
        Condition: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': TENANT_LEADING_KEYS },
          // ForAllValues holds over an empty set: without this, a request with no leading key (a Scan) would pass.
          Null: { 'dynamodb:LeadingKeys': 'false' },
        },
      },
      {
        Sid: 'OrganisationReportFiles',
        Effect: 'Allow',
        Action: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
        Resource: `arn:aws:s3:::${bucket}/org/${ORG}/*`,
      },
      {
        Sid: 'OrganisationReportListing',
        Effect: 'Allow',
        Action: 's3:ListBucket',
        Resource: `arn:aws:s3:::${bucket}`,
        Condition: { StringLike: { 's3:prefix': `org/${ORG}/*` } },
      },
      {
        Sid: 'OrganisationChannelSecrets',
        Effect: 'Allow',
        Action: ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue', 'secretsmanager:DescribeSecret'],
        Resource: `arn:aws:secretsmanager:${region}:${account}:secret:wp-crm/${stage}/channels/${ORG}/*`,
      },
      {
        Sid: 'OrganisationEncryptionContext',
        Effect: 'Allow',
        Action: ['kms:Encrypt', 'kms:Decrypt', 'kms:GenerateDataKey'],
        Resource: keyArn,
        // The webhook signing secrets are sealed under { orgId, webhookId } (shared/domain/webhooks/subscription.ts).
        Condition: { StringEquals: { 'kms:EncryptionContext:orgId': ORG } },
      },
      {
        Sid: 'NothingWithoutAnOrganisation',
        Effect: 'Deny',
        Action: '*',
        Resource: '*',
        Condition: { Null: { 'aws:PrincipalTag/org': 'true' } },
      },
    ],
  };
}

/**
 * The tenant-access role's trust policy: the account delegates to its function roles of the stage (so each needs
 * `sts:AssumeRole` and `sts:TagSession` on the role in its own policy too), and only with the tag `org` set to an
 * organisation id, passed as the only session tag and never transitive.
 */
export function tenantTrustPolicy(deployment: Pick<TenantDeployment, 'account' | 'stage'>): PolicyDocument {
  const callers = { 'aws:PrincipalArn': `arn:aws:iam::${deployment.account}:role/WpCrm-${deployment.stage}-*` };
  const root = { AWS: `arn:aws:iam::${deployment.account}:root` };
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'FunctionRolesWithAnOrganisation',
        Effect: 'Allow',
        Principal: root,
        Action: 'sts:AssumeRole',
        Condition: { ArnLike: callers, StringLike: { 'aws:RequestTag/org': ORG_ID_PATTERN } },
      },
      {
        Sid: 'TheOrganisationTagOnly',
        Effect: 'Allow',
        Principal: root,
        Action: 'sts:TagSession',
        Condition: {
          ArnLike: callers,
          StringLike: { 'aws:RequestTag/org': ORG_ID_PATTERN },
          'ForAllValues:StringEquals': { 'aws:TagKeys': ['org'] },
          Null: { 'sts:TransitiveTagKeys': 'true' },
        },
      },
    ],
  };
}

/**
 * A sweeper's own grant on its due list, a global index partition (CONTRACT §25: global partitions give only the ids
 * needed to find work): a Query of `partitions` that returns key attributes only (`dynamodb:Attributes`, and
 * `dynamodb:Select` SPECIFIC_ATTRIBUTES so a query without a projection is refused). The index projects every
 * attribute; IAM keeps this role to the keys, and the items are read with each organisation's credentials.
 */
export function keysOnlyDueListPolicy(tableArn: string, index: 'GSI1' | 'GSI2', partitions: string[]): PolicyDocument {
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'DueListKeysOnly',
        Effect: 'Allow',
        Action: 'dynamodb:Query',
        Resource: `${tableArn}/index/${index}`,
        Condition: {
          'ForAllValues:StringEquals': {
            'dynamodb:LeadingKeys': partitions,
            'dynamodb:Attributes': ['PK', 'SK', `${index}PK`, `${index}SK`],
          },
          StringEquals: { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' },
          Null: { 'dynamodb:LeadingKeys': 'false' },
        },
      },
    ],
  };
}

/** What a function role holds to reach its organisations: the two STS actions on the tenant-access role. */
export function assumeTenantPolicy(tenantRoleArn: string): PolicyDocument {
  return {
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action: ['sts:AssumeRole', 'sts:TagSession'], Resource: tenantRoleArn }],
  };
}

/** The key policy KMS needs before any identity policy counts: the account delegates to IAM. */
export function delegatingKeyPolicy(account: string): PolicyDocument {
  return {
    Version: '2012-10-17',
    Statement: [
      { Effect: 'Allow', Principal: { AWS: `arn:aws:iam::${account}:root` }, Action: 'kms:*', Resource: '*' },
    ],
  };
}
