import type { EventPattern } from './pattern.ts';

/** The `source` of every event this service publishes. */
export const EVENT_SOURCE = 'wp-crm';

/** Event `detail-type`s: the contract's names (CONTRACT §7 and §12). */
export const EVENT_TYPES = [
  'group.created',
  'group.creation_failed',
  'report.completed',
  'report.failed',
  'message.received',
  'message.status',
  'group.participants_changed',
  'group.updated',
  'group.deleted',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The event types of the first release: a subscription stored with exactly these was made for "every type". */
export const FIRST_EVENT_TYPES: readonly EventType[] = [
  'group.created',
  'group.creation_failed',
  'report.completed',
  'report.failed',
];

/** `events: ["*"]`: every event type, present and future (CONTRACT §12). */
export const ALL_EVENTS = '*';

/** The service's queues, with the settings both deployments apply. */
export interface QueueDef {
  /** Logical name; the CDK construct id is derived from it. */
  name: string;
  /** The consumer function folder under functions/. */
  consumer: string;
  batchSize: number;
  /** Function timeout; the queue's visibility timeout is 6× this (AWS guidance). */
  timeoutSeconds: number;
  maxReceiveCount: number;
  maxConcurrency: number;
  /** Function memory (and so CPU) in MB. @default 512 */
  memoryMb?: number;
  /** V8 heap settings for the consumer (NODE_OPTIONS). */
  nodeOptions?: string;
  /** A message older than this means the consumer falls behind or keeps failing: the queue's age alarm fires. */
  alarmAgeMinutes: number;
  /**
   * The consumer's pool is shared by every organisation and its work waits on the outside world or runs long: no
   * organisation holds more than its share of the pool's invocations at once (shared/queue/org-share.ts, CONTRACT
   * §18). `every-job`: each job takes its organisation's place in the invocation before it runs; `outside-calls`: the
   * work takes it itself, just before it waits on the outside world (the dispatcher: not for fan-outs or waits).
   */
  orgShare?: 'every-job' | 'outside-calls';
}

/**
 * The variable that tells a consumer the size of its pool as deployed: the event source's MaximumConcurrency (set
 * from the same catalog value by the stack; start:cdk lowers it to the environments it runs per function).
 */
export const poolSizeVariable = (queue: string) => `${queue.toUpperCase().replaceAll('-', '_')}_POOL_SIZE`;

export const REPORT_WORKER_NODE_OPTIONS = '--max-old-space-size=256 --max-semi-space-size=2';

export const QUEUES: QueueDef[] = [
  /** Group creation requests → group-worker, which calls Meta. Retries back off through the visibility timeout. */
  {
    name: 'group-requests',
    consumer: 'group-worker',
    // 10 × 6 = 60 messages in flight at most: twice the 30 a tenant needs in flight before SQS fair queues can
    // detect it by its share of in-flight messages (CONTRACT §18, bench/RESULTS.md P6).
    batchSize: 10,
    timeoutSeconds: 30,
    maxReceiveCount: 10,
    maxConcurrency: 6,
    // Retries back off up to 15 minutes while Meta is unavailable.
    alarmAgeMinutes: 30,
    // Each job waits for Meta's answer.
    orgShare: 'every-job',
  },
  /** Outbound chat messages → message-sender. */
  {
    name: 'outbound-messages',
    consumer: 'message-sender',
    // 10 × 10 = 100 in flight: a flooding organisation reaches the fair queue's 30 while others keep 70 (§18).
    batchSize: 10,
    timeoutSeconds: 30,
    maxReceiveCount: 5,
    maxConcurrency: 10,
    alarmAgeMinutes: 15,
    // Each job waits for Meta's answer.
    orgShare: 'every-job',
  },
  /**
   * Domain events from the bus, and delivery attempts → webhook-dispatcher. An attempt waits at most 10 s for the
   * receiver and a batch's records run at once, so a batch of 10 fits the 60 s timeout.
   * Fairness (CONTRACT §18): an organisation's attempts hold at most its share of the 50 invocations (a quarter,
   * shared/queue/org-share.ts), and a subscription whose attempt took 3 s or more (a timeout among them) has its
   * attempts moved to webhook-slow-receivers, a pool of its own, until one answers within 3 s: a slow receiver holds
   * this pool for one attempt's time at most, however many organisations have one. 10 × 50 = 500 in flight lets the
   * fair queue's in-flight share (30 minimum) detect a flood.
   */
  {
    name: 'webhook-deliveries',
    consumer: 'webhook-dispatcher',
    batchSize: 10,
    timeoutSeconds: 60,
    maxReceiveCount: 5,
    maxConcurrency: 50,
    // A retry waits at most 15 minutes on the queue; longer waits go through the due-time index.
    alarmAgeMinutes: 30,
    orgShare: 'outside-calls',
  },
  /**
   * The attempts of slow receivers (their last attempt took 3 s or more, or timed out) → slow-receiver-dispatcher, the
   * dispatcher's code in a pool of its own: slow receivers wait on each other here, never on the healthy receivers'
   * pool above (CONTRACT §18). Every rule of §18 holds here as there (2 attempts in flight per subscription, 10 s, the
   * slow lane after 5 failures, Retry-After); each organisation holds at most a quarter of these 10 invocations.
   */
  {
    name: 'webhook-slow-receivers',
    consumer: 'slow-receiver-dispatcher',
    batchSize: 10,
    timeoutSeconds: 60,
    maxReceiveCount: 5,
    maxConcurrency: 10,
    alarmAgeMinutes: 30,
    orgShare: 'outside-calls',
  },
  /**
   * Report requests → report-worker. One report per invocation with Lambda's longest timeout (15 min): a report
   * streams its CSV, so memory does not grow with rows; 1 GB buys the CPU for CSV encoding and holds the two
   * 5 MiB upload parts in flight, a page of 500 records and the bounded join cache (bench/RESULTS.md).
   */
  {
    name: 'report-requests',
    consumer: 'report-worker',
    // One report per invocation, so the fair queue sees a heavy organisation by its share of processing time (a
    // report runs for minutes), not by in-flight counts. An organisation runs at most a quarter of the 12 workers at
    // once (3 of its 9 types; orgShare below), so however many organisations run all nine, another's report still
    // finds a free worker while fewer than four do, and the fair queue hands it over first (CONTRACT §18).
    batchSize: 1,
    timeoutSeconds: 900,
    maxReceiveCount: 5,
    maxConcurrency: 12,
    memoryMb: 1024,
    // A small young generation and a capped heap make V8 collect the CSV garbage early: peak RSS stays near the
    // live set (about 40 MB for a 1,000,000-row report) instead of growing with allocation (bench/RESULTS.md).
    nodeOptions: REPORT_WORKER_NODE_OPTIONS,
    // Workers of at most 15 minutes each.
    alarmAgeMinutes: 30,
    // A report runs for seconds to minutes: an organisation runs at most a quarter of the pool's reports at once.
    orgShare: 'every-job',
  },
  /**
   * Meta's notifications, as the internet-facing network webhook kept them → apply-network-notifications, which sorts
   * each by organisation and forwards it in that organisation's group before applying it (CONTRACT §21). Meta was
   * answered 200 already, so this queue is what keeps them: ten receives with backoff (about 50 minutes of a failing
   * dependency) before the DLQ, whose alarm asks for a redrive.
   */
  {
    name: 'network-notifications',
    consumer: 'apply-network-notifications',
    // 10 × 10 = 100 in flight: twice the 30 a tenant needs before SQS fair queues can detect a flooding one (§18).
    batchSize: 10,
    timeoutSeconds: 30,
    maxReceiveCount: 10,
    maxConcurrency: 10,
    alarmAgeMinutes: 15,
  },
  /**
   * Every domain event from the bus → feed-writer, which forwards it in its organisation's message group (as the
   * dispatcher forwards its fan-outs: EventBridge gives it none) and then appends it to its organisation's event feed
   * (CONTRACT §20). In its group, one organisation's burst is that organisation's backlog in the fair queue, not the
   * head of everyone's line (issue 35). A batch's events of one organisation become one compare-and-set of the feed's
   * head, so a batch of 10 costs one commit per organisation in it. Ten receives before the DLQ: a busy head makes a
   * writer retry, never fail, so a message that keeps failing is a real fault.
   */
  {
    name: 'event-feed',
    consumer: 'feed-writer',
    batchSize: 10,
    timeoutSeconds: 30,
    maxReceiveCount: 10,
    maxConcurrency: 10,
    // Publication to visibility is p99 ≤ 5 s (CONTRACT §20): a minute of age means the feed falls behind.
    alarmAgeMinutes: 5,
  },
];

/** Bus rules, defined once: the local bus applies them, the CDK stack turns them into EventBridge rules. */
export interface BusRule {
  id: string;
  description: string;
  pattern: EventPattern;
  /**
   * The queue (by logical name) the matching events go to. EventBridge's SQS target sends them without a
   * MessageGroupId of the event's own (SqsParameters takes a fixed group only, as AWS documents it): the queue's
   * consumer gives each its organisation's group itself (CONTRACT §18, §22).
   */
  targetQueue: string;
}

export const BUS_RULES: BusRule[] = [
  {
    id: 'DeliverWebhooks',
    description:
      "Every domain event goes to the webhook dispatcher, which fans it out to the organisation's subscriptions",
    pattern: { source: [EVENT_SOURCE], 'detail-type': [...EVENT_TYPES] },
    // The dispatcher forwards each event as a fan-out job in its organisation's group before fanning it out, so the
    // fan-out's tenant is the organisation too, not only the attempts' (shared/domain/webhooks/dispatch.ts).
    targetQueue: 'webhook-deliveries',
  },
  {
    id: 'AppendToFeed',
    description: "Every domain event goes to the feed writer, which appends it to its organisation's event feed",
    pattern: { source: [EVENT_SOURCE], 'detail-type': [...EVENT_TYPES] },
    // The feed writer forwards each event as an append job in its organisation's group (shared/domain/events/feed.ts).
    targetQueue: 'event-feed',
  },
];

/** Scheduled functions (sweepers): EventBridge schedules on AWS, timers at WPCRM_SWEEP_INTERVAL_MS locally. */
export interface ScheduleDef {
  name: string;
  fn: string;
  /** The AWS schedule rate in minutes. */
  everyMinutes: number;
}

export const SCHEDULES: ScheduleDef[] = [
  /** Times out unconfirmed group requests, re-enqueues stranded ones, republishes unannounced final states. */
  { name: 'group-sweeper', fn: 'group-sweeper', everyMinutes: 1 },
  /** Puts webhook deliveries whose long retry wait is over back on the queue. */
  { name: 'webhook-sweeper', fn: 'webhook-sweeper', everyMinutes: 1 },
  /** Fails reports stuck past REPORT_PROCESSING_TIMEOUT_SECONDS, re-queues stranded ones, republishes events. */
  { name: 'report-sweeper', fn: 'report-sweeper', everyMinutes: 1 },
  /** Requests the reports of report schedules whose occurrence is due (CONTRACT §23), each occurrence once. */
  { name: 'report-schedule-sweeper', fn: 'report-schedule-sweeper', everyMinutes: 1 },
];
