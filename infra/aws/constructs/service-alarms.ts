import { Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { Alarm, ComparisonOperator, type IMetric, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { FilterPattern } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct, type IConstruct } from 'constructs';
import { TABLE_INDEXES } from '#shared/adapters/dynamodb/table';
import { GROUP_REQUEST_ON_HOLD } from '#shared/domain/groups/process-group-request';
import { NETWORK_NOTIFICATION_UNREADABLE } from '#shared/domain/network/notification';
import { type AlarmEndpoints, subscribeAlarmEndpoints } from '../alarm-endpoints.ts';
import type { AppFunction } from './app-function.ts';
import { CERTIFICATE_EXPIRY_ALARM_DAYS } from './edge-rules.ts';
import { denyGrantsButForAwsResources } from './kms.ts';
import type { QueueWorker } from './queue-worker.ts';

export interface ServiceAlarmsProps {
  functions: Iterable<AppFunction>;
  workers: Iterable<QueueWorker>;
  api: HttpApi;
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

const FIVE_MINUTES = Duration.minutes(5);

/**
 * Log lines that ask for an operator: a function logs `{"alert": <name>, …}` and a metric filter on its log group
 * counts them for an alarm (no metrics library in the bundle).
 */
export const LOG_ALERTS = [
  {
    fn: 'group-worker',
    alert: GROUP_REQUEST_ON_HOLD,
    metricName: 'GroupRequestsOnHold',
    description:
      'Meta refused a channel (190 access token invalid, 368 number restricted): its group requests wait on hold until the token is renewed or they time out (docs/operations.md)',
  },
  {
    fn: 'apply-network-notifications',
    alert: NETWORK_NOTIFICATION_UNREADABLE,
    metricName: 'NetworkNotificationsUnreadable',
    description:
      'An item of a signed Meta notification could not be read and was skipped (the rest of its batch was applied): Meta may have changed a shape (CONTRACT §16; the log line names field, type and reason)',
  },
] as const;

/**
 * The operators' alarms and the one SNS topic they notify (docs/operations.md). The topic is encrypted with a
 * customer-managed key whose policy lets CloudWatch use it, and its policy lets CloudWatch publish, both only for
 * this account's alarms: with the AWS-managed SNS key or without that statement, CloudWatch cannot deliver at all.
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

    // A function's and a queue's alarms live beside them (in their concern's nested stack): the service stack's
    // template does not grow with the functions, and a concern's stack holds everything of its functions.
    const functions = [...props.functions];
    this.#functionAlarms(functions);
    this.#logAlertAlarms(functions);
    this.#queueAlarms(props.workers);
    this.#originCertificateAlarms(props);
    this.#alarm(this, 'Api5xx', {
      description: 'The API answered 5xx (INTERNAL or NETWORK_UNAVAILABLE) at least 5 times in 5 minutes',
      metric: props.api.metricServerError({ period: FIVE_MINUTES, statistic: 'Sum' }),
      threshold: 5,
    });
    this.#tableThrottlesAlarm(props.table);
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

  #functionAlarms(functions: AppFunction[]): void {
    for (const fn of functions) {
      this.#alarm(fn, 'ErrorsAlarm', {
        description: `${fn.name} failed invocations (uncaught errors, timeouts, out of memory)`,
        metric: fn.fn.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
        threshold: 1,
      });
      this.#alarm(fn, 'ThrottlesAlarm', {
        description: `${fn.name} invocations throttled by Lambda concurrency`,
        metric: fn.fn.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' }),
        threshold: 1,
      });
    }
  }

  /** LOG_ALERTS: a metric filter on the function's log group, and its alarm. */
  #logAlertAlarms(functions: AppFunction[]): void {
    for (const spec of LOG_ALERTS) {
      const fn = functions.find((candidate) => candidate.name === spec.fn);
      if (!fn) throw new Error(`no function ${spec.fn} for the ${spec.alert} alert`);
      const filter = fn.logGroup.addMetricFilter(`${spec.metricName}Filter`, {
        filterPattern: FilterPattern.stringValue('$.alert', '=', spec.alert),
        // The service stack's name, not the nested stack's: the namespace operators see is the same for every alert.
        metricNamespace: `wp-crm/${Stack.of(this).stackName}`,
        metricName: spec.metricName,
        metricValue: '1',
      });
      this.#alarm(fn, `${spec.metricName}Alarm`, {
        description: spec.description,
        metric: filter.metric({ period: FIVE_MINUTES, statistic: 'Sum' }),
        threshold: 1,
      });
    }
  }

  #queueAlarms(workers: Iterable<QueueWorker>): void {
    for (const worker of workers) {
      this.#alarm(worker, 'OldestMessageAlarm', {
        description: `${worker.def.name} holds a message older than ${worker.def.alarmAgeMinutes} minutes: its consumer falls behind or keeps failing`,
        metric: worker.queue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: 'Maximum' }),
        threshold: worker.def.alarmAgeMinutes * 60,
      });
    }
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
    this.alarms.push(alarm);
  }

  /** Read and write throttle events of the table and each of its indexes, summed. */
  #tableThrottlesAlarm(table: ITableV2): void {
    const throttleEvents: Record<string, IMetric> = {};
    const indexes = [undefined, ...TABLE_INDEXES.map((index) => index.indexName)];
    for (const [position, indexName] of indexes.entries()) {
      for (const kind of ['Read', 'Write']) {
        throttleEvents[`${kind.toLowerCase()}${position}`] = table.metric(`${kind}ThrottleEvents`, {
          period: FIVE_MINUTES,
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
        period: FIVE_MINUTES,
        label: 'Throttle events',
      }),
      threshold: 1,
    });
  }

  /** Notifies the topic from `alarm` too (alarms other constructs made, such as the dead-letter queues'). */
  notify(alarm: Alarm): void {
    alarm.addAlarmAction(new SnsAction(this.topic));
  }

  #alarm(scope: IConstruct, id: string, spec: { description: string; metric: IMetric; threshold: number }) {
    const alarm = new Alarm(scope, id, {
      alarmDescription: spec.description,
      metric: spec.metric,
      threshold: spec.threshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.alarms.push(alarm);
  }
}
