import {
  assumeTenantStatements,
  channelSecretsPrefix,
  tenantAccessPolicy as deployedAccessPolicy,
  tenantTrustPolicy as deployedTrustPolicy,
} from '#infra/aws/tenant-access';
import type { PolicyDocument } from '#infra/cdk-local/iam/policy';

export {
  ORG_ID_PATTERN,
  TENANT_CALLER_TAG,
  TENANT_ITEM_ACTIONS,
  TENANT_LEADING_KEYS,
  TENANT_SESSION_NAME_PATTERN,
} from '#infra/aws/tenant-access';

/**
 * The tenant-access role's policies (CONTRACT §25) as the stacks deploy them (infra/aws/tenant-access.ts, the single
 * source), with a deployment's names in place of CloudFormation's references: fixtures of the local evaluator's tests
 * and of its comparison with a third-party simulator. Every grant names the organisation only through the session tag
 * `${aws:PrincipalTag/org}`.
 */
export interface TenantDeployment {
  account: string;
  region: string;
  stage: string;
  tableArn: string;
  bucket: string;
  keyArn: string;
}

/** The tenant-access role's permissions. */
export function tenantAccessPolicy(deployment: TenantDeployment): PolicyDocument {
  const { account, region, stage, tableArn, bucket, keyArn } = deployment;
  return deployedAccessPolicy({
    tableArn,
    bucketArn: `arn:aws:s3:::${bucket}`,
    keyArn,
    channelSecretsArnPrefix: `arn:aws:secretsmanager:${region}:${account}:secret:${channelSecretsPrefix(stage)}`,
  });
}

/**
 * The tenant-access role's trust policy: the account delegates to its roles tagged as the stage's function roles (so
 * each needs `sts:AssumeRole` and `sts:TagSession` on the role in its own policy too), and only for a session named
 * `org-<orgId>` with the tag `org` set to an organisation id, passed as the only session tag and never transitive.
 */
export function tenantTrustPolicy(deployment: Pick<TenantDeployment, 'account' | 'stage'>): PolicyDocument {
  return deployedTrustPolicy(`arn:aws:iam::${deployment.account}:root`, deployment.stage);
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
  return { Version: '2012-10-17', Statement: assumeTenantStatements(tenantRoleArn) };
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
