import { type CfnElement, Duration, Stack, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import {
  channelSecretsPrefix,
  ORG,
  TENANT_SESSION_SECONDS,
  tenantAccessPolicy,
  tenantTrustConditions,
} from '../tenant-access.ts';

export interface TenantAccessRoleProps {
  stage: string;
  table: ITableV2;
  reports: IBucket;
  /** The key webhook signing secrets are sealed with. */
  webhookSecretsKey: IKey;
}

/**
 * The stage's tenant-access role (CONTRACT §25, infra/aws/tenant-access.ts): the only principal that reaches an
 * organisation's items, index partitions, report files, channel tokens and webhook secrets, and only the organisation
 * its session's `org` tag names. It lives beside the data it names; the function roles that may assume it (in the
 * concerns' nested stacks) are not named in its trust policy but carry the stage's caller tag, so the service stack
 * never depends on a nested stack.
 */
export class TenantAccessRole extends Construct {
  readonly role: iam.Role;
  /** The value of the caller tag (TENANT_CALLER_TAG) its trust policy accepts: the stage. */
  readonly stage: string;

  constructor(scope: Construct, id: string, props: TenantAccessRoleProps) {
    super(scope, id);
    this.stage = props.stage;
    const { partition, region, account } = Stack.of(this);
    const prefix = channelSecretsPrefix(props.stage);
    const trust = tenantTrustConditions(props.stage);
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.AccountRootPrincipal().withConditions(trust.assumeRole),
      maxSessionDuration: Duration.seconds(TENANT_SESSION_SECONDS),
      description: "One organisation's data, for a function acting for it (the session tag org names it)",
      inlinePolicies: {
        Organisation: iam.PolicyDocument.fromJson(
          tenantAccessPolicy({
            tableArn: props.table.tableArn,
            bucketArn: props.reports.bucketArn,
            keyArn: props.webhookSecretsKey.keyArn,
            channelSecretsArnPrefix: `arn:${partition}:secretsmanager:${region}:${account}:secret:${prefix}`,
          }),
        ),
      },
    });
    this.role.assumeRolePolicy!.addStatements(
      new iam.PolicyStatement({
        principals: [new iam.AccountRootPrincipal()],
        actions: ['sts:TagSession'],
        conditions: trust.tagSession,
      }),
    );
    this.#acknowledge(props, prefix);
  }

  /** The wildcards cdk-nag finds: each is what the session's organisation creates at run time, under its id. */
  #acknowledge(props: TenantAccessRoleProps, prefix: string): void {
    const stack = Stack.of(this);
    // cdk-nag writes a policy variable as it writes a reference: `<aws:PrincipalTag/org>`.
    const org = `<${ORG.slice(2, -1)}>`;
    const attribute = (construct: Construct, name: string) =>
      `${stack.getLogicalId(construct.node.defaultChild as CfnElement)}.${name}`;
    const findings = [
      [`<${attribute(props.reports, 'Arn')}>/org/${org}/*`, "The organisation's report files, named at run time"],
      [
        `arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${prefix}${org}/*`,
        "The organisation's channel token secrets, created per channel at run time",
      ],
    ];
    for (const [resource, reason] of findings) {
      Validations.of(this.role).acknowledge({ id: `AwsSolutions-IAM5[Resource::${resource}]`, reason: reason! });
    }
  }
}
