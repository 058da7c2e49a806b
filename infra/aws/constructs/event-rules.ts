import { Duration, Validations } from 'aws-cdk-lib';
import { type EventPattern as CdkEventPattern, type IEventBus, Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction, SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { type IQueue, Queue, QueueEncryption, RedrivePermission } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { BusRule } from '#shared/events/catalog';
import type { EventPattern } from '#shared/events/pattern';
import type { ScheduleDef } from '../functions.ts';
import { pascalCase } from '../naming.ts';
import { deadLetterAlarm } from './operator-alarm.ts';

export interface EventRulesProps {
  /** The bus the catalog's rules listen on. */
  bus: IEventBus;
  /** Bus rules from the catalog; each routes to a queue of `queues`. */
  rules: readonly BusRule[];
  /** The service's queues by logical name. */
  queues: ReadonlyMap<string, IQueue>;
  /** Scheduled functions from the catalog (rules on the default bus). */
  schedules: readonly ScheduleDef[];
  /** The deployed function of a `functions/` folder. */
  functionFor: (fn: string) => IFunction;
  /**
   * The operators' topic, which the dead-letter queue's alarm notifies.
   * @default - an alarm that notifies no one
   */
  alarmTopic?: ITopic;
}

/**
 * The catalog's bus rules and schedules as EventBridge rules. Every target has an explicit retry policy and a
 * dead-letter queue with an alarm (RELIABILITY K-5), so an event EventBridge could not deliver is kept, not dropped.
 */
export class EventRules extends Construct {
  /** Undelivered events of every rule; absent when the catalog has no rules. */
  readonly deadLetterQueue: Queue | undefined;

  constructor(scope: Construct, id: string, props: EventRulesProps) {
    super(scope, id);
    if (props.rules.length === 0 && props.schedules.length === 0) return;

    const deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      // Says it is a dead-letter queue (what SQS applies when none is set; Control Tower CT.SQS.PR.1 reads it).
      redriveAllowPolicy: { redrivePermission: RedrivePermission.ALLOW_ALL },
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.deadLetterQueue = deadLetterQueue;
    Validations.of(deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is the dead-letter queue of the EventBridge targets.',
    });
    deadLetterAlarm(
      this,
      'EventBridge could not deliver events to their targets',
      deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
      props.alarmTopic,
    );

    for (const rule of props.rules) {
      const queue = props.queues.get(rule.targetQueue);
      if (!queue) throw new Error(`bus rule ${rule.id}: no queue named ${rule.targetQueue}`);
      new Rule(this, pascalCase(rule.id), {
        eventBus: props.bus,
        description: rule.description,
        eventPattern: toCdkPattern(rule.pattern),
        // A queue is normally always reachable; keep retrying for EventBridge's maximum day before giving up.
        targets: [
          new SqsQueue(queue, {
            deadLetterQueue,
            retryAttempts: 185,
            maxEventAge: Duration.hours(24),
          }),
        ],
      });
    }

    for (const schedule of props.schedules) {
      // A failed sweep is not retried: the next one is due within minutes and repeats all of its work; Lambda's
      // default two retries would only run sweeps on top of each other.
      props.functionFor(schedule.fn).configureAsyncInvoke({ retryAttempts: 0 });
      new Rule(this, pascalCase(schedule.name), {
        description: `Runs ${schedule.fn} every ${schedule.everyMinutes} min`,
        schedule: Schedule.rate(Duration.minutes(schedule.everyMinutes)),
        // A late sweep is worthless once the next one is due.
        targets: [
          new LambdaFunction(props.functionFor(schedule.fn), {
            deadLetterQueue,
            retryAttempts: 2,
            maxEventAge: Duration.minutes(Math.min(Math.max(1, schedule.everyMinutes), 24 * 60)),
          }),
        ],
      });
    }
  }
}

/**
 * The catalog writes patterns in EventBridge's JSON (`detail-type`), as the local bus matches them; CDK's
 * EventPattern spells that key `detailType` and passes every other key through unchanged.
 */
export function toCdkPattern(pattern: EventPattern): CdkEventPattern {
  const { 'detail-type': detailType, ...rest } = pattern;
  return { ...rest, ...(detailType === undefined ? {} : { detailType }) } as CdkEventPattern;
}
