import * as iam from 'aws-cdk-lib/aws-iam';
import type { Key } from 'aws-cdk-lib/aws-kms';

/**
 * Denies `kms:CreateGrant` on `key` unless the grant is for an AWS resource or an AWS service asks (Control Tower
 * CT.KMS.PR.3): nothing of the service creates grants on its keys — the functions call Encrypt/Decrypt themselves,
 * and SNS and CloudWatch use the key directly — so no principal the key policy lets in can hand its use on.
 */
export function denyGrantsButForAwsResources(key: Key): void {
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: ['kms:CreateGrant'],
      resources: ['*'],
      conditions: { BoolIfExists: { 'kms:GrantIsForAWSResource': 'false', 'aws:PrincipalIsAWSService': 'false' } },
    }),
  );
}
