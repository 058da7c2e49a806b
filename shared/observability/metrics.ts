import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { BUSINESS_METRICS, type BusinessCount, METRICS_NAMESPACE, METRICS_SERVICE } from './metric-names.ts';

/**
 * Built on the first business outcome, not at load: most invocations count none, and a cold start then pays for the
 * Powertools Metrics instance (and the console it builds) only when it counts one (bench/RESULTS.md, P1).
 */
let built: Metrics | undefined;
const metrics = () => {
  built ??= new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE });
  return built;
};

/**
 * Counts one business outcome (CONTRACT §17) as a CloudWatch embedded-metric-format record, printed at once: the
 * outcomes are rare next to the invocations, and no handler has to flush. On Lambda the record goes to stdout, where
 * CloudWatch turns it into the metric; `npm start` sets WPCRM_METRICS_FILE and the same record is appended there,
 * where `wpcrm status` reads it as it reads start:cdk's function logs.
 */
export function countBusiness(name: BusinessCount, value = 1): void {
  const counted = metrics();
  counted.addMetric(BUSINESS_METRICS[name], MetricUnit.Count, value);
  const file = process.env.WPCRM_METRICS_FILE;
  if (!file) {
    counted.publishStoredMetrics();
    return;
  }
  const record = JSON.stringify(counted.serializeMetrics());
  counted.clearMetrics();
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, `${record}\n`);
}
