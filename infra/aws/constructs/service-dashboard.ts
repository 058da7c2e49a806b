import { Duration, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Dashboard, GraphWidget, type IMetric, Metric, Stats, TextWidget } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { BUSINESS_METRICS, METRICS_NAMESPACE, METRICS_SERVICE } from '#shared/observability/metric-names';
import type { AppFunction } from './app-function.ts';
import type { QueueWorker } from './queue-worker.ts';

export interface ServiceDashboardProps {
  /** The service functions, by their `functions/` folder. */
  functions: ReadonlyMap<string, AppFunction>;
  workers: Iterable<QueueWorker>;
  api: HttpApi;
  table: ITableV2;
}

const PERIOD = Duration.minutes(5);

/** A business count of the functions' EMF records (shared/observability/metric-names.ts), summed per period. */
export const businessMetric = (name: string, period: Duration = PERIOD) =>
  new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { service: METRICS_SERVICE },
    statistic: Stats.SUM,
    period,
  });

/**
 * The operators' picture over time (CONTRACT §17), the same figures `wpcrm status` prints for now: API requests,
 * 4xx, 5xx and latency; per function errors, throttles and duration; queue ages and DLQ depths; DynamoDB throttles;
 * and the business counts.
 */
export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    this.dashboard = new Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(24),
      widgets: [
        [
          new TextWidget({
            markdown:
              '# wp-crm\nThe figures of `wpcrm status` over time. What each alarm means and what to do: docs/operations.md.',
            width: 24,
            height: 2,
          }),
        ],
        apiWidgets(props.api),
        [
          graph(
            'Business counts',
            Object.values(BUSINESS_METRICS).map((name) => businessMetric(name).with({ label: name })),
            24,
          ),
        ],
        queueWidgets([...props.workers]),
        functionWidgets([...props.functions]),
        [
          graph(
            'DynamoDB throttled events',
            ['ReadThrottleEvents', 'WriteThrottleEvents'].map((name) =>
              props.table.metric(name, { period: PERIOD, statistic: Stats.SUM, label: name }),
            ),
            24,
          ),
        ],
      ],
    });
  }

  /** The console address of the dashboard (output DashboardUrl). */
  get url(): string {
    const { region } = Stack.of(this);
    return `https://${region}.console.aws.amazon.com/cloudwatch/home?region=${region}#dashboards:name=${this.dashboard.dashboardName}`;
  }
}

const graph = (title: string, left: IMetric[], width = 12) => new GraphWidget({ title, left, width, height: 6 });

/** API requests, 4xx and 5xx, latency. */
function apiWidgets(api: HttpApi): GraphWidget[] {
  return [
    graph('API requests', [api.metricCount({ period: PERIOD, statistic: Stats.SUM, label: 'requests' })], 8),
    graph(
      'API 4xx and 5xx',
      [
        api.metricClientError({ period: PERIOD, statistic: Stats.SUM, label: '4xx' }),
        api.metricServerError({ period: PERIOD, statistic: Stats.SUM, label: '5xx' }),
      ],
      8,
    ),
    graph(
      'API latency (ms)',
      [
        api.metricLatency({ period: PERIOD, statistic: Stats.p(50), label: 'p50' }),
        api.metricLatency({ period: PERIOD, statistic: Stats.p(99), label: 'p99' }),
      ],
      8,
    ),
  ];
}

/** Each queue's oldest message and its dead-letter queue's depth. */
function queueWidgets(workers: QueueWorker[]): GraphWidget[] {
  return [
    graph(
      'Queue age of oldest message (s)',
      workers.map((worker) =>
        worker.queue.metricApproximateAgeOfOldestMessage({
          period: PERIOD,
          statistic: Stats.MAXIMUM,
          label: worker.def.name,
        }),
      ),
    ),
    graph(
      'Dead-letter queue depth',
      workers.map((worker) =>
        worker.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period: PERIOD,
          statistic: Stats.MAXIMUM,
          label: worker.def.name,
        }),
      ),
    ),
  ];
}

/** Each function's errors, throttles and p99 duration, labelled by its folder. */
function functionWidgets(functions: [string, AppFunction][]): GraphWidget[] {
  const perFunction = (metric: (fn: AppFunction) => Metric) =>
    functions.map(([name, fn]) => metric(fn).with({ label: name, period: PERIOD }));
  return [
    graph(
      'Function errors',
      perFunction((fn) => fn.fn.metricErrors({ statistic: Stats.SUM })),
      8,
    ),
    graph(
      'Function throttles',
      perFunction((fn) => fn.fn.metricThrottles({ statistic: Stats.SUM })),
      8,
    ),
    graph(
      'Function duration p99 (ms)',
      perFunction((fn) => fn.fn.metricDuration({ statistic: Stats.p(99) })),
      8,
    ),
  ];
}
