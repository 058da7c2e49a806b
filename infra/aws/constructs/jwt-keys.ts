import { type CfnElement, CustomResource, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { type IStringParameter, StringParameter } from 'aws-cdk-lib/aws-ssm';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { AppFunction } from './app-function.ts';

export interface JwtKeysProps {
  /** Name of the SSM parameter holding the public JWKS (e.g. `/wp-crm/dev/jwt/public-keys`). */
  parameterName: string;
  /** The service's table: the manager also writes the JWKS item the service's verifiers read. */
  table: ITableV2;
  /**
   * Removal policy of the secret, the parameter and the log groups.
   * @default RemovalPolicy.RETAIN
   */
  removalPolicy?: RemovalPolicy;
  /**
   * The operators' topic, which the key manager's alarms notify.
   * @default - no alarms
   */
  alarmTopic?: ITopic;
}

/**
 * The ES256 keys of the access tokens on AWS: the private key set in a Secrets Manager secret, the public JWKS in an
 * SSM parameter and in an item of the service's table, and the `jwt-keys` function that creates the set on
 * the first deployment (custom resource) and rotates it when an operator invokes it (`add`, `activate`, `retire`).
 */
export class JwtKeys extends Construct {
  readonly secret: Secret;
  /**
   * The public JWKS. Its value is the key manager's alone: the template does not declare the parameter, so no
   * template update can ever write a placeholder over the published keys.
   */
  readonly publicKeys: IStringParameter;
  readonly manager: AppFunction;

  constructor(scope: Construct, id: string, props: JwtKeysProps) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    // Created with a random value; the manager treats anything but a key set as empty and generates one.
    this.secret = new Secret(this, 'SigningKeys', {
      description: 'wp-crm JWT signing key set (private JWKs); written by the jwt-keys function',
      removalPolicy,
    });
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'A key rotation needs waiting periods between publishing, activating and retiring a key, which a ' +
        'Secrets Manager rotation cannot express; operators run add/activate/retire through the jwt-keys function.',
    });
    this.publicKeys = StringParameter.fromStringParameterName(this, 'PublicKeys', props.parameterName);

    this.manager = new AppFunction(this, 'Manager', {
      fn: 'jwt-keys',
      timeout: Duration.seconds(30),
      description: 'Creates the JWT key set on deploy; direct invocations rotate it',
      logRemovalPolicy: removalPolicy,
      alarmTopic: props.alarmTopic,
    });
    this.manager
      .bindSigningKeys(this.secret, 'readWrite')
      .bindPublicKeysParameter(this.publicKeys)
      .bindPublicKeysItem(props.table, 'write');
    const disposable = removalPolicy === RemovalPolicy.DESTROY;
    if (disposable) {
      this.manager.role.addToPrincipalPolicy(
        new iam.PolicyStatement({ actions: ['ssm:DeleteParameter'], resources: [this.publicKeys.parameterArn] }),
      );
    }

    // An own role for the provider framework, so its logs permissions are scoped to its log group.
    const providerLogs = new LogGroup(this, 'ProviderLogs', { retention: RetentionDays.ONE_MONTH, removalPolicy });
    const providerRole = new iam.Role(this, 'ProviderRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    });
    providerLogs.grantWrite(providerRole);
    const provider = new Provider(this, 'Provider', {
      onEventHandler: this.manager.fn,
      frameworkOnEventRole: providerRole,
      logGroup: providerLogs,
    });
    const managerId = Stack.of(this).getLogicalId(this.manager.fn.node.defaultChild as CfnElement);
    Validations.of(providerRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${managerId}.Arn>:*]`,
      reason: 'The CDK provider framework may invoke any version of the key manager function.',
    });

    // Create/Update: generate the key set unless one exists, and (re)publish its public keys. Delete: remove the
    // published keys where the stack is disposable; the secret is the template's and goes with it.
    new CustomResource(this, 'KeySet', {
      serviceToken: provider.serviceToken,
      resourceType: 'Custom::JwtKeySet',
      properties: {
        SecretId: this.secret.secretArn,
        Parameter: props.parameterName,
        RemoveOnDelete: String(disposable),
      },
    });
  }
}
