import { type RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { Alarm, ComparisonOperator, type IMetric, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { TABLE_INDEXES } from '#shared/adapters/dynamodb/table';
import { type AlarmEndpoints, subscribeAlarmEndpoints } from '../alarm-endpoints.ts';
import { CERTIFICATE_EXPIRY_ALARM_DAYS } from './edge-rules.ts';
import { denyGrantsButForAwsResources } from './kms.ts';
import { ALARM_PERIOD, type OperatorAlarmSpec, operatorAlarm } from './operator-alarm.ts';

export interface ServiceAlarmsProps {
  table: ITableV2;
  /**
   * The ACM certificate of the API's origin custom domain (the edge's `edgeOriginCertificateArn`, in this stack's
   * region), whose expiry the operators are warned of.
   * @default - no edge, no custom domain
   */
  originCertificateArn?: string;
  /**
   * The ACM certificate that proves the origin domain is the operator's (the edge's
   * `edgeOriginOwnershipCertificateArn`, in this stack's region): when it expires, API Gateway refuses every change
   * to the domain, a new truststore included.
   * @default - none given
   */
  originOwnershipCertificateArn?: string;
  /**
   * The operator's endpoints subscribed to the topic (`-c alarmEmail`, `-c alarmHttpsEndpoint`).
   * @default - none: the operator subscribes by hand
   */
  endpoints?: AlarmEndpoints;
  /**
   * Removal policy of the topic's key.
   * @default RemovalPolicy.RETAIN
   */
  removalPolicy?: RemovalPolicy;
}

/**
 * The one SNS topic every alarm of the service notifies (docs/operations.md), and the alarms of what the service stack
 * itself holds: the table, the API and the origin's certificates. A function's and a queue's alarms are made beside
 * them, in their concern's nested stack, with this topic passed in (AppFunction, QueueWorker, EventRules): the service
 * stack's template does not grow with the functions. The topic is encrypted with a customer-managed key whose policy
 * lets CloudWatch use it, and its policy lets CloudWatch publish, both only for this account's alarms: with the
 * AWS-managed SNS key or without that statement, CloudWatch cannot deliver at all.
 */
export class ServiceAlarms extends Construct {
  readonly topic: Topic;
  readonly key: Key;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    this.key = this.#topicKey(props.removalPolicy);
    this.topic = this.#topic(this.key);
    subscribeAlarmEndpoints(this.topic, props.endpoints);

    this.#originCertificateAlarms(props);
    this.#tableThrottlesAlarm(props.table);
  }

  /** The API's 5xx answers. */
  watchApi(api: HttpApi): void {
    this.#alarm(this, 'Api5xx', {
      description: 'The API answered 5xx (INTERNAL or NETWORK_UNAVAILABLE) at least 5 times in 5 minutes',
      metric: api.metricServerError({ period: ALARM_PERIOD, statistic: 'Sum' }),
      threshold: 5,
    });
  }

  /** CloudWatch may use and publish to the topic for this account's alarms only. */
  get #fromOwnAlarms() {
    const { account, region, partition } = Stack.of(this);
    return {
      StringEquals: { 'aws:SourceAccount': account },
      ArnLike: { 'aws:SourceArn': `arn:${partition}:cloudwatch:${region}:${account}:alarm:*` },
    };
  }

  #topicKey(removalPolicy: RemovalPolicy | undefined): Key {
    const key = new Key(this, 'TopicKey', {
      description: 'Encrypts the wp-crm alarm topic; CloudWatch may use it for this account’s alarms',
      enableKeyRotation: true,
      removalPolicy,
    });
    denyGrantsButForAwsResources(key);
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: this.#fromOwnAlarms,
      }),
    );
    return key;
  }

  #topic(key: Key): Topic {
    const topic = new Topic(this, 'Topic', { displayName: 'wp-crm alarms', enforceSSL: true, masterKey: key });
    topic.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: this.#fromOwnAlarms,
      }),
    );
    return topic;
  }

  #originCertificateAlarms(props: ServiceAlarmsProps): void {
    if (props.originCertificateArn) {
      // The origin domain's certificate lives in this region, where the edge stack's alarms cannot watch it. It may
      // be imported (never renewed by ACM) or ACM's (then a drop below the threshold means its renewal is stuck);
      // DaysToExpiry stops once it expired, so no data is a breach (docs/operations.md).
      this.#certificateAlarm(
        'OriginCertificate',
        props.originCertificateArn,
        'OriginCertificateExpiry',
        `Fewer than ${CERTIFICATE_EXPIRY_ALARM_DAYS} days left on the certificate of the API's origin domain (edgeOriginCertificateArn): when it expires CloudFront cannot reach the API. Renew it (docs/operations.md).`,
      );
    }
    if (props.originOwnershipCertificateArn) {
      // ACM issued it and renews it; a drop below the threshold means its renewal is stuck (docs/operations.md).
      this.#certificateAlarm(
        'OriginOwnershipCertificate',
        props.originOwnershipCertificateArn,
        'OriginOwnershipCertificateExpiry',
        `Fewer than ${CERTIFICATE_EXPIRY_ALARM_DAYS} days left on the ownership certificate of the API's origin domain (edgeOriginOwnershipCertificateArn), which ACM should have renewed: once it expires API Gateway locks the domain (no new truststore, no certificate change). Renew it (docs/operations.md).`,
      );
    }
  }

  #certificateAlarm(certificateId: string, certificateArn: string, alarmId: string, description: string): void {
    const certificate = Certificate.fromCertificateArn(this, certificateId, certificateArn);
    const alarm = new Alarm(this, alarmId, {
      alarmDescription: description,
      metric: certificate.metricDaysToExpiry(),
      threshold: CERTIFICATE_EXPIRY_ALARM_DAYS,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.BREACHING,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    this.alarms.push(alarm);
  }

  /** Read and write throttle events of the table and each of its indexes, summed. */
  #tableThrottlesAlarm(table: ITableV2): void {
    const throttleEvents: Record<string, IMetric> = {};
    const indexes = [undefined, ...TABLE_INDEXES.map((index) => index.indexName)];
    for (const [position, indexName] of indexes.entries()) {
      for (const kind of ['Read', 'Write']) {
        throttleEvents[`${kind.toLowerCase()}${position}`] = table.metric(`${kind}ThrottleEvents`, {
          period: ALARM_PERIOD,
          statistic: 'Sum',
          dimensionsMap: {
            TableName: table.tableName,
            ...(indexName ? { GlobalSecondaryIndexName: indexName } : {}),
          },
        });
      }
    }
    this.#alarm(this, 'TableThrottles', {
      description: 'DynamoDB throttled reads or writes on the table or its indexes',
      metric: new MathExpression({
        expression: Object.keys(throttleEvents).join('+'),
        usingMetrics: throttleEvents,
        period: ALARM_PERIOD,
        label: 'Throttle events',
      }),
      threshold: 1,
    });
  }

  #alarm(scope: Construct, id: string, spec: OperatorAlarmSpec) {
    this.alarms.push(operatorAlarm(scope, id, spec, this.topic));
  }
}
