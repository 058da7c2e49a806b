import { createReadStream } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CloudFormationClient, paginateListStackResources } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient, DescribeAlarmsCommand, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ListQueuesCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { QUEUES } from '#infra/aws/functions';
import type { LocalCredentials } from '#infra/local/sigv4';
import {
  BUSINESS_METRICS,
  type BusinessCount,
  METRICS_NAMESPACE,
  METRICS_SERVICE,
} from '#shared/observability/metric-names';
import { stackNotRunning } from './errors.ts';
import type { Target } from './target.ts';

/** One SQS queue as an operator sees it. */
export interface QueueState {
  name: string;
  url: string;
  arn: string;
  depth: number;
  inFlight: number;
  /** Seconds; null when unknown (no datapoint yet on AWS). */
  oldestAgeSeconds: number | null;
}

/** A service queue (by its catalog name, CONTRACT §17 `--queue`) and its dead-letter queue. */
export interface QueuePair {
  queue: string;
  source: QueueState;
  deadLetter: QueueState;
}

export interface PeekedMessage {
  messageId: string;
  body: unknown;
  /** SQS's ApproximateReceiveCount: the consumers' receives, and this look's own. */
  receiveCount: number;
  sentAt: string | null;
  /** When a consumer first received (and so first failed on) the message. */
  firstFailureAt: string | null;
}

/**
 * What the stuck-work and status commands read beyond the table: the queues, the alarms and the business counts.
 * Locally the queues answer on the stack's own SQS endpoint and the counts are the EMF records the functions wrote;
 * on AWS they come from SQS, CloudFormation and CloudWatch.
 */
export interface OpsSources {
  kind: Target['kind'];
  queues(): Promise<QueuePair[]>;
  /** Up to `limit` dead-letter messages, left in the queue (their visibility is reset at once). */
  peek(pair: QueuePair, limit: number): Promise<PeekedMessage[]>;
  /** Moves dead-letter messages back to the source queue; `max` moves at most that many, one by one. */
  redrive(pair: QueuePair, max: number | undefined): Promise<{ moved: number; taskHandle?: string }>;
  /** Alarms in ALARM; undefined where there are none to read (the local stack). */
  alarmsFiring(): Promise<{ name: string; reason: string; since: string | null }[] | undefined>;
  /** Each business count since `since`. */
  counts(since: Date): Promise<Record<BusinessCount, number>>;
  pairNamed(pairs: QueuePair[], name: string): QueuePair;
  close(): void;
}

export async function opsSources(target: Target): Promise<OpsSources> {
  return target.kind === 'aws' ? awsSources(target) : localSources(target);
}

/** The catalog name of a queue, from its physical name (`group-requests` locally, `…GroupRequestsQueue…` by CDK). */
function catalogName(physical: string): string {
  const pascal = (name: string) => name.replace(/(^|-)([a-z])/g, (_, __, char: string) => char.toUpperCase());
  const def = QUEUES.find((item) => physical === item.name || physical.includes(`${pascal(item.name)}Queue`));
  return def?.name ?? physical;
}

async function describeQueues(
  sqs: SQSClient,
  urls: string[],
  ages: (states: QueueState[]) => Promise<void>,
): Promise<QueuePair[]> {
  const described = await Promise.all(
    urls.map(async (url) => {
      const { Attributes = {} } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }),
      );
      const local = Attributes as Record<string, string>;
      const state: QueueState = {
        name: url.split('/').pop()!,
        url,
        arn: Attributes.QueueArn ?? '',
        depth: Number(Attributes.ApproximateNumberOfMessages ?? 0),
        inFlight: Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0),
        oldestAgeSeconds:
          local.ApproximateAgeOfOldestMessage === undefined ? null : Number(local.ApproximateAgeOfOldestMessage),
      };
      const redrive = Attributes.RedrivePolicy
        ? (JSON.parse(Attributes.RedrivePolicy) as { deadLetterTargetArn: string }).deadLetterTargetArn
        : undefined;
      return { state, redrive };
    }),
  );
  await ages(described.map((item) => item.state));
  const byArn = new Map(described.map((item) => [item.state.arn, item.state]));
  return described
    .filter((item) => item.redrive && byArn.has(item.redrive))
    .map((item) => ({ queue: catalogName(item.state.name), source: item.state, deadLetter: byArn.get(item.redrive!)! }))
    .sort((a, b) => a.queue.localeCompare(b.queue));
}

const iso = (epochMs: string | undefined) =>
  epochMs && Number(epochMs) > 0 ? new Date(Number(epochMs)).toISOString() : null;

function parsedBody(body: string | undefined): unknown {
  try {
    return JSON.parse(body ?? '');
  } catch {
    return body ?? null;
  }
}

async function peek(sqs: SQSClient, pair: QueuePair, limit: number): Promise<PeekedMessage[]> {
  const seen = new Map<string, Message>();
  // Each look hides what it got for 30 s so the next one sees the rest; all become visible again right after.
  while (seen.size < limit) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: pair.deadLetter.url,
        MaxNumberOfMessages: Math.min(10, limit - seen.size),
        VisibilityTimeout: 30,
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: ['All'],
      }),
    );
    const fresh = Messages.filter((message) => !seen.has(message.MessageId!));
    if (fresh.length === 0) break;
    for (const message of fresh) seen.set(message.MessageId!, message);
  }
  await Promise.all(
    [...seen.values()].map((message) =>
      sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: pair.deadLetter.url,
          ReceiptHandle: message.ReceiptHandle!,
          VisibilityTimeout: 0,
        }),
      ),
    ),
  );
  return [...seen.values()].map((message) => ({
    messageId: message.MessageId!,
    body: parsedBody(message.Body),
    receiveCount: Number(message.Attributes?.ApproximateReceiveCount ?? 0),
    sentAt: iso(message.Attributes?.SentTimestamp),
    firstFailureAt: iso(message.Attributes?.ApproximateFirstReceiveTimestamp),
  }));
}

/** Receive, send to the source, delete: what SQS's move task does, message by message, for at most `max`. */
async function moveOneByOne(sqs: SQSClient, pair: QueuePair, max: number): Promise<number> {
  let moved = 0;
  while (moved < max) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: pair.deadLetter.url,
        MaxNumberOfMessages: Math.min(10, max - moved),
        VisibilityTimeout: 60,
        WaitTimeSeconds: 0,
      }),
    );
    if (Messages.length === 0) break;
    for (const message of Messages) {
      await sqs.send(new SendMessageCommand({ QueueUrl: pair.source.url, MessageBody: message.Body! }));
      await sqs.send(
        new DeleteMessageCommand({ QueueUrl: pair.deadLetter.url, ReceiptHandle: message.ReceiptHandle! }),
      );
      moved += 1;
    }
  }
  return moved;
}

const zeroCounts = () =>
  Object.fromEntries(Object.keys(BUSINESS_METRICS).map((key) => [key, 0])) as Record<BusinessCount, number>;

async function localSources(target: Target): Promise<OpsSources> {
  const dataDir = target.dataDir!;
  const stackFile = join(dataDir, 'stack.json');
  const info = JSON.parse(await readFile(stackFile, 'utf8').catch(() => '{}')) as {
    endpoints?: { sqs?: string };
    credentials?: LocalCredentials;
  };
  const endpoint = info.endpoints?.sqs;
  if (!endpoint)
    throw stackNotRunning(`${stackFile} names no queue endpoint; set WPCRM_DATA_DIR to the stack's data dir`);
  // The queues' endpoint answers only the stack's key of this run, which the same stack.json holds.
  const credentials = info.credentials ?? target.credentials;
  if (!credentials) throw stackNotRunning(`${stackFile} holds no key; restart the stack`);
  const sqs = new SQSClient({
    region: 'local',
    endpoint,
    credentials,
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000 },
  });
  return {
    kind: 'local',
    queues: async () => {
      const { QueueUrls = [] } = await sqs.send(new ListQueuesCommand({}));
      return describeQueues(sqs, QueueUrls, async () => undefined);
    },
    peek: (pair, limit) => peek(sqs, pair, limit),
    redrive: async (pair, max) => ({ moved: await moveOneByOne(sqs, pair, max ?? Number.POSITIVE_INFINITY) }),
    alarmsFiring: async () => undefined,
    counts: (since) => localCounts(join(dataDir, 'logs'), since),
    pairNamed,
    close: () => sqs.destroy(),
  };
}

interface EmfRecord {
  _aws?: { Timestamp?: number; CloudWatchMetrics?: { Namespace?: string; Metrics?: { Name: string }[] }[] };
  [key: string]: unknown;
}

/**
 * The business counts as CloudWatch would sum them: the EMF records the functions printed, which the local stacks
 * keep under `<data dir>/logs` (npm start: metrics.log; start:cdk: each function's log file).
 */
export async function localCounts(logDir: string, since: Date): Promise<Record<BusinessCount, number>> {
  const counts = zeroCounts();
  const byName = new Map(Object.entries(BUSINESS_METRICS).map(([key, name]) => [name as string, key as BusinessCount]));
  const files = await readdir(logDir).catch(() => [] as string[]);
  for (const file of files.filter((name) => name.endsWith('.log'))) {
    const lines = createInterface({ input: createReadStream(join(logDir, file)), crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of lines) {
      if (!line.includes('"CloudWatchMetrics"') || !line.includes(METRICS_NAMESPACE)) continue;
      let record: EmfRecord;
      try {
        record = JSON.parse(line.slice(line.indexOf('{'))) as EmfRecord;
      } catch {
        continue;
      }
      if ((record._aws?.Timestamp ?? 0) < since.getTime()) continue;
      for (const directive of record._aws?.CloudWatchMetrics ?? []) {
        if (directive.Namespace !== METRICS_NAMESPACE) continue;
        for (const metric of directive.Metrics ?? []) {
          const key = byName.get(metric.Name);
          const value = record[metric.Name];
          if (key)
            counts[key] += Array.isArray(value)
              ? value.reduce((sum: number, item) => sum + Number(item), 0)
              : Number(value ?? 0);
        }
      }
    }
  }
  return counts;
}

async function awsSources(target: Target): Promise<OpsSources> {
  const { name: stackName, region } = target.stack!;
  const options = { region, maxAttempts: 3, requestHandler: { connectionTimeout: 2_000, requestTimeout: 10_000 } };
  const sqs = new SQSClient(options);
  const cloudWatch = new CloudWatchClient(options);
  const cfn = new CloudFormationClient(options);
  const queueUrls = async () => {
    const urls: string[] = [];
    for await (const page of paginateListStackResources({ client: cfn }, { StackName: stackName })) {
      for (const resource of page.StackResourceSummaries ?? []) {
        if (resource.ResourceType === 'AWS::SQS::Queue' && resource.PhysicalResourceId)
          urls.push(resource.PhysicalResourceId);
      }
    }
    return urls;
  };
  // SQS has no attribute for the oldest message's age: CloudWatch's ApproximateAgeOfOldestMessage, last 5 minutes.
  const ages = async (states: QueueState[]) => {
    const now = new Date();
    const { MetricDataResults = [] } = await cloudWatch.send(
      new GetMetricDataCommand({
        StartTime: new Date(now.getTime() - 10 * 60_000),
        EndTime: now,
        MetricDataQueries: states.map((state, index) => ({
          Id: `q${index}`,
          MetricStat: {
            Metric: {
              Namespace: 'AWS/SQS',
              MetricName: 'ApproximateAgeOfOldestMessage',
              Dimensions: [{ Name: 'QueueName', Value: state.name }],
            },
            Period: 300,
            Stat: 'Maximum',
          },
        })),
      }),
    );
    for (const result of MetricDataResults) {
      const state = states[Number(result.Id!.slice(1))];
      if (state && result.Values?.length) state.oldestAgeSeconds = result.Values[0]!;
    }
  };
  return {
    kind: 'aws',
    queues: async () => describeQueues(sqs, await queueUrls(), ages),
    peek: (pair, limit) => peek(sqs, pair, limit),
    redrive: async (pair, max) => {
      if (max !== undefined) return { moved: await moveOneByOne(sqs, pair, max) };
      const { TaskHandle } = await sqs.send(
        new StartMessageMoveTaskCommand({ SourceArn: pair.deadLetter.arn, DestinationArn: pair.source.arn }),
      );
      // The task moves what the DLQ holds as it starts; it runs on in SQS (ListMessageMoveTasks shows progress).
      return { moved: pair.deadLetter.depth + pair.deadLetter.inFlight, taskHandle: TaskHandle };
    },
    alarmsFiring: async () => {
      const { MetricAlarms = [] } = await cloudWatch.send(
        new DescribeAlarmsCommand({ StateValue: 'ALARM', AlarmNamePrefix: `${stackName}-`, MaxRecords: 100 }),
      );
      return MetricAlarms.map((alarm) => ({
        name: alarm.AlarmName!,
        reason: alarm.AlarmDescription ?? alarm.StateReason ?? '',
        since: alarm.StateUpdatedTimestamp?.toISOString() ?? null,
      }));
    },
    counts: async (since) => {
      const entries = Object.entries(BUSINESS_METRICS);
      const seconds = Math.max(60, Math.ceil((Date.now() - since.getTime()) / 60_000) * 60);
      const { MetricDataResults = [] } = await cloudWatch.send(
        new GetMetricDataCommand({
          StartTime: since,
          EndTime: new Date(),
          MetricDataQueries: entries.map(([, name], index) => ({
            Id: `m${index}`,
            MetricStat: {
              Metric: {
                Namespace: METRICS_NAMESPACE,
                MetricName: name,
                Dimensions: [{ Name: 'service', Value: METRICS_SERVICE }],
              },
              Period: seconds,
              Stat: 'Sum',
            },
          })),
        }),
      );
      const counts = zeroCounts();
      for (const result of MetricDataResults) {
        const key = entries[Number(result.Id!.slice(1))]![0] as BusinessCount;
        counts[key] = (result.Values ?? []).reduce((sum, value) => sum + value, 0);
      }
      return counts;
    },
    pairNamed,
    close: () => {
      sqs.destroy();
      cloudWatch.destroy();
      cfn.destroy();
    },
  };
}

/** The pair of a catalog name; a stack without it is not this service's. */
export function pairNamed(pairs: QueuePair[], name: string): QueuePair {
  const pair = pairs.find((item) => item.queue === name);
  if (!pair) throw stackNotRunning(`the stack has no queue ${name} with a dead-letter queue`);
  return pair;
}
