import { randomBytes } from 'node:crypto';

/**
 * The calls Lambda makes with a function's execution role when it first runs: CloudWatch Logs' CreateLogStream and
 * PutLogEvents on a stream of its own, `YYYY/MM/DD/[$LATEST]<32 hex>` (both authorized on the stream's ARN, which a
 * policy grants through the group's `log-group:<name>:*`), and X-Ray's two calls when tracing is active.
 */
export function lambdaServiceCalls(input: {
  region: string;
  account: string;
  logGroup: string;
  tracing: boolean;
  now?: Date;
}): { action: string; resource: string }[] {
  const day = (input.now ?? new Date()).toISOString().slice(0, 10).replaceAll('-', '/');
  const stream = `${day}/[$LATEST]${randomBytes(16).toString('hex')}`;
  const logStreamArn = `arn:aws:logs:${input.region}:${input.account}:log-group:${input.logGroup}:log-stream:${stream}`;
  return [
    { action: 'logs:CreateLogStream', resource: logStreamArn },
    { action: 'logs:PutLogEvents', resource: logStreamArn },
    ...(input.tracing
      ? [
          { action: 'xray:PutTraceSegments', resource: '*' },
          { action: 'xray:PutTelemetryRecords', resource: '*' },
        ]
      : []),
  ];
}
