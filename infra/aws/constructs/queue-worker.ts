import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption, RedrivePermission } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { queueUrlVariable } from '#shared/adapters/sqs/job-queue';
import { poolSizeVariable } from '#shared/events/catalog';
import type { QueueDef } from '../functions.ts';
import { AppFunction, type AppFunctionProps } from './app-function.ts';
import { ALARM_PERIOD, deadLetterAlarm, operatorAlarm } from './operator-alarm.ts';

/** Fewer receives than this send a message to the DLQ on a short throttling or deploy blip (RELIABILITY K-5). */
export const MIN_MAX_RECEIVE_COUNT = 5;

export interface QueueWorkerProps {
  /** The queue as the catalog defines it for both deployments. */
  def: QueueDef;
  /**
   * Removal policy of the consumer's log group.
   * @default RemovalPolicy.RETAIN
   */
  logRemovalPolicy?: RemovalPolicy;
  /**
   * The operators' topic: the DLQ's alarm notifies it, and the queue's age and the consumer's own alarms are made.
   * @default - the DLQ's alarm alone, notifying no one
   */
  alarmTopic?: ITopic;
  /** The consumer's settings beyond the queue's: its files and log alerts. */
  consumer?: Pick<AppFunctionProps, 'files' | 'alerts'>;
}

/**
 * An SQS queue and its consumer, with everything STYLE requires of every SQS source: a DLQ after
 * `maxReceiveCount` receives, an alarm on the DLQ, partial batch failures, and a visibility timeout of 6× the
 * function timeout (so a message is not redelivered while a slow batch still runs).
 */
export class QueueWorker extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly consumer: AppFunction;
  readonly alarm: Alarm;
  readonly def: QueueDef;

  constructor(scope: Construct, id: string, props: QueueWorkerProps) {
    super(scope, id);
    const { def } = props;
    if (def.maxReceiveCount < MIN_MAX_RECEIVE_COUNT) {
      throw new Error(`queue ${def.name}: maxReceiveCount must be at least ${MIN_MAX_RECEIVE_COUNT}`);
    }
    this.def = def;
    const timeout = Duration.seconds(def.timeoutSeconds);
    this.consumer = new AppFunction(this, 'Consumer', {
      fn: def.consumer,
      timeout,
      memorySize: def.memoryMb,
      // As much concurrency reserved as the event source may use (maximum concurrency): Lambda can then never
      // throttle a batch the event source took from the queue, which would return its messages with a receive
      // counted and, five throttles later, move them to the DLQ. AWS: "make sure that your function's reserved
      // concurrency is greater than or equal to the total maximum concurrency of all Amazon SQS event sources on the
      // function. Otherwise, Lambda may throttle your messages"
      // (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html). docs/deployment.md: account quotas.
      reservedConcurrency: def.maxConcurrency,
      environment: {
        ...(def.nodeOptions ? { NODE_OPTIONS: `--enable-source-maps ${def.nodeOptions}` } : {}),
        // The pool the organisations share (shared/queue/org-share.ts): the event source's maximum concurrency below.
        ...(def.orgShare ? { [poolSizeVariable(def.name)]: String(def.maxConcurrency) } : {}),
      },
      logRemovalPolicy: props.logRemovalPolicy,
      alarmTopic: props.alarmTopic,
      ...props.consumer,
    });

    // The DLQ keeps messages longer than the source, so a redriven message never expires on the way.
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      // Says it is a dead-letter queue (what SQS applies when none is set; Control Tower CT.SQS.PR.1 reads it).
      redriveAllowPolicy: { redrivePermission: RedrivePermission.ALLOW_ALL },
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(4),
      visibilityTimeout: Duration.seconds(def.timeoutSeconds * 6),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: def.maxReceiveCount },
    });
    this.consumer.fn.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: def.batchSize,
        maxConcurrency: def.maxConcurrency,
        reportBatchItemFailures: true,
      }),
    );

    this.alarm = deadLetterAlarm(
      this,
      `Messages of ${def.name} failed ${def.maxReceiveCount} times and wait in its DLQ`,
      this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: 'Maximum',
      }),
      props.alarmTopic,
    );
    if (props.alarmTopic) {
      operatorAlarm(
        this,
        'OldestMessageAlarm',
        {
          description: `${def.name} holds a message older than ${def.alarmAgeMinutes} minutes: its consumer falls behind or keeps failing`,
          metric: this.queue.metricApproximateAgeOfOldestMessage({ period: ALARM_PERIOD, statistic: 'Maximum' }),
          threshold: def.alarmAgeMinutes * 60,
        },
        props.alarmTopic,
      );
    }
  }

  /** Lets a function send to this queue: `<NAME>_QUEUE_URL` and `sqs:SendMessage` on this queue only. */
  bindProducer(producer: AppFunction): void {
    producer.addEnvironment(queueUrlVariable(this.def.name), this.queue.queueUrl);
    // SendMessage alone: grantSendMessages' GetQueueAttributes and GetQueueUrl are never called (the URL is given).
    producer.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }),
    );
  }
}
