import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, type IMetric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IConstruct } from 'constructs';

/** The period of the operators' alarms on sums and maxima (errors, throttles, alert lines, queue age). */
export const ALARM_PERIOD = Duration.minutes(5);

export interface OperatorAlarmSpec {
  description: string;
  metric: IMetric;
  /** The alarm fires at this value or above, in one period; no data is no breach. */
  threshold: number;
}

/**
 * An alarm for the operators, made beside what it watches and notifying their topic (docs/operations.md: what each
 * means and what to do).
 */
export function operatorAlarm(scope: IConstruct, id: string, spec: OperatorAlarmSpec, topic: ITopic): Alarm {
  const alarm = new Alarm(scope, id, {
    alarmDescription: spec.description,
    metric: spec.metric,
    threshold: spec.threshold,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  alarm.addAlarmAction(new SnsAction(topic));
  return alarm;
}

/** A dead-letter queue's alarm: any message in it asks for an operator (a redrive, once its cause is fixed). */
export function deadLetterAlarm(scope: IConstruct, description: string, metric: IMetric, topic?: ITopic): Alarm {
  const alarm = new Alarm(scope, 'DeadLetterAlarm', {
    alarmDescription: description,
    metric,
    threshold: 0,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  if (topic) alarm.addAlarmAction(new SnsAction(topic));
  return alarm;
}
