import { itemSize, type OperationCapacity } from './capacity-meter.ts';
import type { FlowUsage } from './group-e2e.ts';
import { chatRecord } from './report-memory.ts';

/**
 * List prices, US East (N. Virginia), on-demand, without free tiers or volume tiers, as published on the AWS pricing
 * pages for Lambda, DynamoDB, SQS, EventBridge, API Gateway and S3 (figures cross-checked 2026-11-23 against
 * summaries of those pages dated March and June 2026).
 */
export const PRICES = {
  region: 'us-east-1',
  checked: '2026-11-23',
  lambdaArmGbSecond: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  dynamoWriteRequestUnit: 0.625 / 1e6,
  dynamoReadRequestUnit: 0.125 / 1e6,
  sqsRequest: 0.4 / 1e6,
  eventBridgeEvent: 1 / 1e6,
  httpApiRequest: 1 / 1e6,
  s3Put: 0.005 / 1000,
  s3Get: 0.0004 / 1000,
  s3GbMonth: 0.023,
  internetTransferGb: 0.09,
} as const;

/** Memory of each function on AWS (AppFunction's 512 MB default; its row in infra/aws/functions.ts gives the report worker 1 GB). */
const MEMORY_MB: Record<string, number> = { 'report-worker': 1024 };
const memoryGb = (fn: string) => (MEMORY_MB[fn] ?? 512) / 1024;

export interface CostLine {
  item: string;
  quantity: string;
  dollars: number;
}

const per = (n: number) => (value: number) => value * n;

/**
 * $ per million group creations from one measured flow (P4's metered pass): DynamoDB request units as the meter
 * counted them, Lambda invocations and durations as the local stack ran them (DynamoDB there is dynalite, a few ms per
 * call like the real one; the Graph API is the simulator, which answers at once, so Meta's own latency is not in it),
 * SQS at three requests per message (send, the event source's receive, its delete), one custom event per group, and
 * API Gateway for the create call and Meta's webhook.
 */
export function groupCreationCost(usage: FlowUsage): CostLine[] {
  const million = per(1e6 / usage.groups);
  // The metered pass polled each group once; polls are priced on their own (pollCost), callers may not poll at all.
  const capacity = sumCapacity(usage.capacity, (key) => !key.startsWith(`${POLL_FN}:`));
  const lines: CostLine[] = [];
  let gbSeconds = 0;
  let invocations = 0;
  for (const [fn, entry] of usage.functions) {
    if (fn === POLL_FN) continue;
    gbSeconds += (entry.totalMs / 1000) * memoryGb(fn);
    invocations += entry.invocations;
  }
  const webhookCalls = usage.functions.get('receive-network-webhook')?.invocations ?? 0;
  lines.push(
    {
      item: 'Lambda requests',
      quantity: `${(invocations / usage.groups).toFixed(1)} invocations per group`,
      dollars: million(invocations) * PRICES.lambdaRequest,
    },
    {
      item: 'Lambda duration (arm64)',
      quantity: `${((gbSeconds / usage.groups) * 1000).toFixed(1)} GB-ms per group`,
      dollars: million(gbSeconds) * PRICES.lambdaArmGbSecond,
    },
    {
      item: 'DynamoDB writes (on-demand)',
      quantity: `${((capacity.writeUnits + capacity.indexWriteUnits) / usage.groups).toFixed(1)} WRU per group (${(capacity.indexWriteUnits / usage.groups).toFixed(1)} of them index writes)`,
      dollars: million(capacity.writeUnits + capacity.indexWriteUnits) * PRICES.dynamoWriteRequestUnit,
    },
    {
      item: 'DynamoDB reads (on-demand)',
      quantity: `${(capacity.readUnits / usage.groups).toFixed(1)} RRU per group`,
      dollars: million(capacity.readUnits) * PRICES.dynamoReadRequestUnit,
    },
    {
      item: 'SQS requests',
      quantity: `${(usage.sqsMessages / usage.groups).toFixed(1)} messages × 3 requests per group`,
      dollars: million(usage.sqsMessages * 3) * PRICES.sqsRequest,
    },
    {
      item: 'EventBridge custom events',
      quantity: `${(usage.busEvents / usage.groups).toFixed(1)} per group`,
      dollars: million(usage.busEvents) * PRICES.eventBridgeEvent,
    },
    {
      item: 'API Gateway HTTP API',
      quantity: `${((usage.apiRequests + webhookCalls) / usage.groups).toFixed(1)} requests per group (create + Meta's webhook)`,
      dollars: million(usage.apiRequests + webhookCalls) * PRICES.httpApiRequest,
    },
  );
  return lines;
}

const POLL_FN = 'get-group-status';

/** $ per million status polls: the API call, the function and its read. */
export function pollCost(usage: FlowUsage): CostLine[] {
  const polls = usage.polls;
  const fn = usage.functions.get(POLL_FN) ?? { invocations: 0, totalMs: 0 };
  const capacity = sumCapacity(usage.capacity, (key) => key.startsWith(`${POLL_FN}:`));
  const million = per(1e6 / Math.max(polls, 1));
  return [
    { item: 'API Gateway HTTP API', quantity: '1 request', dollars: 1e6 * PRICES.httpApiRequest },
    { item: 'Lambda requests', quantity: '1 invocation', dollars: 1e6 * PRICES.lambdaRequest },
    {
      item: 'Lambda duration (arm64, 512 MB)',
      quantity: `${(fn.totalMs / Math.max(polls, 1)).toFixed(1)} ms`,
      dollars: million((fn.totalMs / 1000) * memoryGb(POLL_FN)) * PRICES.lambdaArmGbSecond,
    },
    {
      item: 'DynamoDB reads',
      quantity: `${(capacity.readUnits / Math.max(polls, 1)).toFixed(1)} RRU`,
      dollars: million(capacity.readUnits) * PRICES.dynamoReadRequestUnit,
    },
  ];
}

/**
 * $ per 1,000,000-row CHAT report: the report worker's duration at P3's measured rate (1 GB), the time-index query
 * (eventually consistent, item sizes summed per 1 MB page, from the benchmark's row shape plus its keys), the
 * multipart upload (5 MiB parts), 7 days of storage, one download over the internet, one event, and the API calls
 * around it (request, one status poll, download).
 */
export function reportCost(rows: number, rowsPerSecond: number, fileBytes: number): CostLine[] {
  const sample = chatRecord(0, Date.parse('2026-06-01T00:00:00.000Z'));
  const stored = {
    PK: 'ORG#3f1c2a4e-8b7d-4c1a-9e2f-0a1b2c3d4e5f',
    SK: `CHAT#${sample.chatId}`,
    GSI2PK: 'ORG#3f1c2a4e-8b7d-4c1a-9e2f-0a1b2c3d4e5f#CHAT',
    GSI2SK: `${sample.updatedAt}#${sample.chatId}`,
    recordType: 'CHAT',
    orgId: '3f1c2a4e-8b7d-4c1a-9e2f-0a1b2c3d4e5f',
    ...sample,
  };
  const itemBytes = itemSize(stored);
  const readUnits = (Math.ceil((rows * itemBytes) / (4 * 1024)) * 0.5) as number;
  const seconds = rows / rowsPerSecond;
  const gb = fileBytes / 2 ** 30;
  const parts = Math.ceil(fileBytes / (5 * 2 ** 20));
  return [
    {
      item: 'Lambda report-worker (arm64, 1 GB)',
      quantity: `${seconds.toFixed(0)} s at ${Math.round(rowsPerSecond).toLocaleString('en')} rows/s`,
      dollars: seconds * memoryGb('report-worker') * PRICES.lambdaArmGbSecond + PRICES.lambdaRequest,
    },
    {
      item: 'DynamoDB reads (time index, eventually consistent)',
      quantity: `${Math.round(readUnits).toLocaleString('en')} RRU (${itemBytes} B per item)`,
      dollars: readUnits * PRICES.dynamoReadRequestUnit,
    },
    {
      item: 'DynamoDB writes (report item, window, transitions)',
      quantity: '≈ 6 WRU',
      dollars: 6 * PRICES.dynamoWriteRequestUnit,
    },
    {
      item: 'S3 multipart upload',
      quantity: `${parts + 2} PUT-class requests`,
      dollars: (parts + 2) * PRICES.s3Put,
    },
    {
      item: 'S3 storage, 7 days retention',
      quantity: `${(gb * 1024).toFixed(0)} MiB`,
      dollars: gb * PRICES.s3GbMonth * (7 / 30),
    },
    {
      item: 'S3 download (GET + transfer to the internet)',
      quantity: `${(gb * 1024).toFixed(0)} MiB once`,
      dollars: PRICES.s3Get + gb * PRICES.internetTransferGb,
    },
    {
      item: 'SQS, EventBridge, API Gateway',
      quantity: '1 message × 3 requests, 1 event, 3 API calls',
      dollars: 3 * PRICES.sqsRequest + PRICES.eventBridgeEvent + 3 * PRICES.httpApiRequest,
    },
  ];
}

export function sumCapacity(capacity: Map<string, OperationCapacity>, filter: (key: string) => boolean = () => true) {
  const sum = { calls: 0, readUnits: 0, writeUnits: 0, indexWriteUnits: 0, conditionalFailures: 0 };
  for (const [key, entry] of capacity) {
    if (!filter(key)) continue;
    for (const field of Object.keys(sum) as (keyof typeof sum)[]) sum[field] += entry[field];
  }
  return sum;
}

export const totalDollars = (lines: CostLine[]) => lines.reduce((sum, line) => sum + line.dollars, 0);
