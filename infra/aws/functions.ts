import { groupKeys, LEADING_KEY_PATTERNS, outboxKeys, reportKeys, scheduleKeys } from '#shared/adapters/dynamodb/keys';
import type { SettingName } from '#shared/config/settings';
import { GROUP_REQUEST_ON_HOLD } from '#shared/domain/groups/process-group-request';
import { NETWORK_NOTIFICATION_UNREADABLE } from '#shared/domain/network/notification';
import { REPORT_REQUEST_RECEIVES } from '#shared/domain/reports/run-report';
import { type BusRule, EVENT_SOURCE, EVENT_TYPES } from '#shared/events/catalog';
import type { Concern } from './concerns.ts';
import type { BucketAccess, GlobalPartitions, IndexName, LogAlert, TableAccess } from './constructs/app-function.ts';

/**
 * What a function may touch, beyond what its routes imply (verifying tokens needs the public keys). Least
 * privilege: nothing is granted by default, so a new function gets a deliberate decision instead of an AccessDenied
 * found only on AWS (start:cdk, with IAM enforced, finds it first).
 *
 * A function that acts for organisations ({@link actsForOrganisations}: `table` without `tableKeys`, `reports`,
 * `webhookSecrets` or `callsNetwork`) reaches their items, index partitions, report files, channel tokens and webhook
 * secrets only with the organisation's credentials: the stage's tenant-access role, assumed with the session tag
 * `org=<orgId>` (CONTRACT §25, infra/aws/tenant-access.ts), whose ARN it gets as `TENANT_ACCESS_ROLE_ARN`. For such a
 * function, `table`, `indexes`, `batchGets`, `batchWrites`, `reports` and `webhookSecrets` say what it does with its
 * organisations' data and grant its own role nothing; its own role keeps what belongs to no organisation: `global`,
 * and what its routes imply (the public keys item, the access-status reads).
 */
export interface FunctionAccess {
  table?: TableAccess;
  /**
   * Only these partitions of the table, with the function's own role (`dynamodb:LeadingKeys` patterns, keys.ts
   * LEADING_KEY_PATTERNS): for the functions that act before an organisation's session exists (issue-token) or on the
   * organisations' console partitions only (the console's link and session routes). A function with `tableKeys` does
   * not act for organisations through `table`.
   */
  tableKeys?: readonly string[];
  /** The indexes it queries (docs/architecture.md, Access patterns); none by default. */
  indexes?: readonly IndexName[];
  /**
   * The partitions that belong to no organisation it reaches with its own role: the links from Meta's ids, the
   * sweepers' due lists (their index partitions).
   */
  global?: GlobalPartitions;
  /** Reads records in batches (the report worker's joins, the feed writer's markers). */
  batchGets?: boolean;
  /** Writes items in batches (the feed writer's events and markers: unconditional, idempotent puts). */
  batchWrites?: boolean;
  reports?: BucketAccess;
  /** PutEvents on the service's bus. */
  publishesEvents?: boolean;
  /** Queues (by their rows' `queue.name`) the function sends to. */
  sendsTo?: readonly string[];
  /**
   * Reads (GetItem) what decides whether a credential still grants access — the credential, its organisation's status
   * copy, a console session — without verifying a token itself (every token verifier has this already).
   */
  checksAccess?: boolean;
  /** Reads the private signing keys: only the token function. */
  signsTokens?: boolean;
  /** Reads the public JWKS without verifying tokens itself (the JWKS endpoint). */
  servesPublicKeys?: boolean;
  /** Calls Meta's Graph API with a channel's access token (Secrets Manager). */
  callsNetwork?: boolean;
  /** Verifies Meta's webhook signatures (the app secret). */
  verifiesNetworkWebhooks?: boolean;
  /** Webhook signing secrets: encrypt new ones (`seal`) or decrypt them to sign (`open`), with the KMS key. */
  webhookSecrets?: 'seal' | 'open';
}

/** The queue a worker consumes: an SQS queue with its DLQ, their alarms, and the event source mapping. */
export interface QueueSpec {
  /** Logical name; the construct id (and so the queue's logical id) is derived from it. */
  name: string;
  batchSize: number;
  maxReceiveCount: number;
  /** The event source's maximum concurrency, which the consumer also reserves. */
  maxConcurrency: number;
  /** A message older than this means the consumer falls behind or keeps failing: the queue's age alarm fires. */
  alarmAgeMinutes: number;
  /**
   * The consumer's pool is shared by every organisation and its work waits on the outside world or runs long: no
   * organisation holds more than its share of the pool's invocations at once (shared/queue/org-share.ts, CONTRACT
   * §18). The stacks tell the consumer its pool's size (`<QUEUE>_POOL_SIZE`); when a job takes its place is the
   * consumer's own (sqsConsumer's `admits`).
   */
  orgShare?: true;
  /** A rule on the service's bus that sends matching events to this queue. */
  fromBus?: Omit<BusRule, 'targetQueue'>;
}

/**
 * One row per deployed function (by its `functions/` folder): everything the infrastructure needs to know about it.
 * The service stack (infra/aws/stacks/service-stack.ts), `npm start` (infra/local/stack.ts) and start:cdk's synth
 * read it; a route names its function in shared/routes and the function's row says the rest.
 */
export interface FunctionRow {
  /**
   * The nested stack it lives in with its role, log group, alarms, routes and queue (infra/aws/concerns.ts). Moving a
   * worker to another concern replaces its queue and DLQ, and their messages are lost: docs/extending.md says how.
   */
  concern: Concern;
  access: FunctionAccess;
  /** The settings it reads (shared/config/settings.ts), each written into its environment when given. */
  settings?: readonly SettingName[];
  /**
   * Function timeout in seconds; an API function's stays below API Gateway's 30 s integration limit.
   * @default 10
   */
  timeoutSeconds?: number;
  /** Memory (and so CPU) in MB. @default 512 */
  memoryMb?: number;
  /** V8 heap settings (NODE_OPTIONS). */
  nodeOptions?: string;
  /** Its log alerts, each with a metric filter and an alarm. */
  alerts?: readonly LogAlert[];
  /** The queue it consumes: a worker. */
  queue?: QueueSpec;
  /** Run on a schedule (a sweeper), every so many minutes: an EventBridge rule on AWS, a timer locally. */
  everyMinutes?: number;
  /** Answers every request no route matches (the `$default` route: the contract's 404 and 405). */
  fallback?: true;
}

export const REPORT_WORKER_NODE_OPTIONS = '--max-old-space-size=256 --max-semi-space-size=2';

/**
 * The links from Meta's group ids and message ids to their organisation's chat and message (chatKeys.externalChat,
 * networkMessage): ids only, in partitions of their own, found from Meta's id before any organisation is known.
 */
const NETWORK_LINKS = { keys: ['WAGROUP#*', 'WAMSG#*'], access: 'readWrite' } as const;
const NETWORK_MEMBER: FunctionAccess = { table: 'readWrite', callsNetwork: true, global: { items: [NETWORK_LINKS] } };
const ALL_DOMAIN_EVENTS = { source: [EVENT_SOURCE], 'detail-type': [...EVENT_TYPES] };
/** Sweepers page through the table in the background; API Gateway's 30 s limit does not apply to them. */
const SWEEP = { timeoutSeconds: 60, everyMinutes: 1 };

export const FUNCTIONS: Readonly<Record<string, FunctionRow>> = {
  // Foundation: tokens, public keys, health, documentation, channels and the 404/405 fallback.
  'get-health': { concern: 'Foundation', access: {} },
  'get-openapi': { concern: 'Foundation', access: {} },
  // Serves the API reference page and its script, bundled into its asset (function-files.ts).
  'get-docs': { concern: 'Foundation', access: {} },
  'route-not-found': { concern: 'Foundation', access: {}, fallback: true },
  // Reads credentials; counts and clears failed attempts. Unauthenticated: those partitions only, with its own role (it
  // acts before any organisation's session exists: the credential names the organisation).
  'issue-token': {
    concern: 'Foundation',
    access: { table: 'readWrite', tableKeys: LEADING_KEY_PATTERNS.issueToken, signsTokens: true },
    settings: ['TOKEN_TTL_SECONDS'],
  },
  'get-jwks': { concern: 'Foundation', access: { servesPublicKeys: true } },
  'list-channels': { concern: 'Foundation', access: { table: 'read' } },

  // The console (CONTRACT §24): its page and assets, bundled into its asset (function-files.ts). The link and session
  // routes reach the organisations' console partitions (ORGCONSOLE#) only, with their own roles: the partition holds
  // no business data, and a session is opened from a link's code or checked from its cookie before the organisation's
  // session exists (CONTRACT §25).
  'get-console': { concern: 'Console', access: {}, settings: ['CONSOLE_FRAME_ANCESTORS'] },
  // Stores a link by its code's hash, in its organisation's console partition (ORGCONSOLE#) only.
  'create-console-link': {
    concern: 'Console',
    access: { table: 'readWrite', tableKeys: LEADING_KEY_PATTERNS.console },
  },
  // Unauthenticated: spend a link, open / refresh / end a session (writes in the console partitions only), check its
  // credential and organisation (reads only); sign.
  'start-console-session': {
    concern: 'Console',
    access: { table: 'readWrite', tableKeys: LEADING_KEY_PATTERNS.console, checksAccess: true, signsTokens: true },
    settings: ['TOKEN_TTL_SECONDS'],
  },
  'refresh-console-session': {
    concern: 'Console',
    access: { table: 'read', tableKeys: LEADING_KEY_PATTERNS.console, checksAccess: true, signsTokens: true },
    settings: ['TOKEN_TTL_SECONDS'],
  },
  'end-console-session': {
    concern: 'Console',
    access: { table: 'readWrite', tableKeys: LEADING_KEY_PATTERNS.console },
  },
  // The Overview's one read: the events feed and the subscriptions' delivery records.
  'get-console-overview': { concern: 'Console', access: { table: 'read' } },

  // Groups: creation, status, listing, settings and deletion, with their worker and sweeper.
  'create-group': {
    concern: 'Groups',
    access: { table: 'readWrite', sendsTo: ['group-requests'] },
    settings: ['GROUP_CREATE_RATE_LIMIT'],
  },
  'get-group-status': { concern: 'Groups', access: { table: 'read' } },
  'list-groups': { concern: 'Groups', access: { table: 'read', indexes: ['GSI1'] } },
  'get-group': { concern: 'Groups', access: { table: 'read' } },
  'update-group': { concern: 'Groups', access: NETWORK_MEMBER },
  'delete-group': { concern: 'Groups', access: NETWORK_MEMBER },
  /** Group creation requests → group-worker, which calls Meta. Retries back off through the visibility timeout. */
  'group-worker': {
    concern: 'Groups',
    access: {
      table: 'readWrite',
      // The link from Meta's request id to the group request (groupKeys.networkRequest).
      global: { items: [{ keys: ['WAREQ#*'], access: 'readWrite' }] },
      publishesEvents: true,
      callsNetwork: true,
      sendsTo: ['group-requests'],
    },
    settings: ['GROUP_RECONCILE_SETTLE_SECONDS', 'NETWORK_RETRY_BASE_SECONDS'],
    timeoutSeconds: 30,
    queue: {
      name: 'group-requests',
      // 10 × 6 = 60 messages in flight at most: twice the 30 a tenant needs in flight before SQS fair queues can
      // detect it by its share of in-flight messages (CONTRACT §18, bench/RESULTS.md P6).
      batchSize: 10,
      maxReceiveCount: 10,
      maxConcurrency: 6,
      // Retries back off up to 15 minutes while Meta is unavailable.
      alarmAgeMinutes: 30,
      // Each job waits for Meta's answer.
      orgShare: true,
    },
    alerts: [
      {
        alert: GROUP_REQUEST_ON_HOLD,
        metricName: 'GroupRequestsOnHold',
        description:
          'Meta refused a channel (190 access token invalid, 368 number restricted): its group requests wait on hold until the token is renewed or they time out (docs/operations.md)',
      },
    ],
  },
  /** Times out unconfirmed group requests, re-enqueues stranded ones, republishes unannounced final states. */
  'group-sweeper': {
    concern: 'Groups',
    access: {
      table: 'readWrite',
      global: {
        // Its due lists: open and unannounced requests, and the events' outbox (its relay runs here).
        queries: [
          {
            index: 'GSI1',
            partitions: [groupKeys.openPartition, groupKeys.unpublishedPartition, ...outboxKeys.unpublishedPartitions],
          },
        ],
        // A held confirmation's request link (groupKeys.networkRequest).
        items: [{ keys: ['WAREQ#*'], access: 'read' }],
      },
      publishesEvents: true,
      callsNetwork: true,
      sendsTo: ['group-requests'],
    },
    settings: ['GROUP_CONFIRMATION_TIMEOUT_SECONDS', 'GROUP_RECONCILE_SETTLE_SECONDS'],
    ...SWEEP,
  },

  // Chats: messages, receipts, assignment, participants, invite links and join requests, with the message sender.
  'get-chat': { concern: 'Chats', access: { table: 'read' } },
  'list-messages': { concern: 'Chats', access: { table: 'read' } },
  'list-receipts': { concern: 'Chats', access: { table: 'read' } },
  'send-message': {
    concern: 'Chats',
    access: { table: 'readWrite', sendsTo: ['outbound-messages'] },
    settings: ['MESSAGE_SEND_RATE_LIMIT'],
  },
  /** Outbound chat messages → message-sender. */
  'message-sender': {
    concern: 'Chats',
    access: {
      table: 'readWrite',
      global: { items: [NETWORK_LINKS] },
      callsNetwork: true,
      publishesEvents: true,
      sendsTo: ['outbound-messages'],
    },
    settings: ['NETWORK_RETRY_BASE_SECONDS'],
    timeoutSeconds: 30,
    queue: {
      name: 'outbound-messages',
      // 10 × 10 = 100 in flight: a flooding organisation reaches the fair queue's 30 while others keep 70 (§18).
      batchSize: 10,
      maxReceiveCount: 5,
      maxConcurrency: 10,
      alarmAgeMinutes: 15,
      // Each job waits for Meta's answer.
      orgShare: true,
    },
  },
  'assign-chat': { concern: 'Chats', access: { table: 'readWrite' } },
  'list-participants': { concern: 'Chats', access: { table: 'read' } },
  'invite-participants': { concern: 'Chats', access: NETWORK_MEMBER, settings: ['MESSAGE_SEND_RATE_LIMIT'] },
  'remove-participants': { concern: 'Chats', access: NETWORK_MEMBER },
  'get-invite-link': { concern: 'Chats', access: NETWORK_MEMBER },
  'reset-invite-link': { concern: 'Chats', access: NETWORK_MEMBER },
  'list-join-requests': { concern: 'Chats', access: { table: 'read' } },
  'approve-join-requests': { concern: 'Chats', access: NETWORK_MEMBER },
  'reject-join-requests': { concern: 'Chats', access: NETWORK_MEMBER },

  // Webhooks: outbound subscriptions and deliveries, with the dispatchers and their sweeper.
  'create-webhook': {
    concern: 'Webhooks',
    access: { table: 'readWrite', webhookSecrets: 'seal' },
    settings: ['WEBHOOK_SUBSCRIPTION_LIMIT'],
  },
  'list-webhooks': { concern: 'Webhooks', access: { table: 'read' } },
  'update-webhook': { concern: 'Webhooks', access: { table: 'readWrite' } },
  'delete-webhook': { concern: 'Webhooks', access: { table: 'readWrite' } },
  'rotate-webhook-secret': { concern: 'Webhooks', access: { table: 'readWrite', webhookSecrets: 'seal' } },
  'list-deliveries': { concern: 'Webhooks', access: { table: 'read' } },
  'list-delivery-attempts': { concern: 'Webhooks', access: { table: 'read' } },
  'redeliver-webhook': {
    concern: 'Webhooks',
    access: { table: 'readWrite', sendsTo: ['webhook-deliveries'] },
    settings: ['WEBHOOK_REDELIVER_RATE_LIMIT'],
  },
  'send-webhook-test': {
    concern: 'Webhooks',
    access: { table: 'readWrite', sendsTo: ['webhook-deliveries'] },
    settings: ['WEBHOOK_REDELIVER_RATE_LIMIT'],
  },
  /**
   * Domain events from the bus, and delivery attempts → webhook-dispatcher. An attempt waits at most 10 s for the
   * receiver and a batch's records run at once, so a batch of 10 fits the 60 s timeout.
   * Fairness (CONTRACT §18): an organisation's attempts hold at most its share of the 50 invocations (a quarter,
   * shared/queue/org-share.ts), and a subscription whose attempt took 3 s or more (a timeout among them) has its
   * attempts moved to webhook-slow-receivers, a pool of its own, until one answers within 3 s: a slow receiver holds
   * this pool for one attempt's time at most, however many organisations have one. 10 × 50 = 500 in flight lets the
   * fair queue's in-flight share (30 minimum) detect a flood. It moves a slow receiver's attempts to the slow
   * receivers' pool (issue 35), and back when it answers in time.
   */
  'webhook-dispatcher': {
    concern: 'Webhooks',
    access: { table: 'readWrite', webhookSecrets: 'open', sendsTo: ['webhook-deliveries', 'webhook-slow-receivers'] },
    settings: ['WEBHOOK_RETRY_SCHEDULE_SECONDS'],
    timeoutSeconds: 60,
    queue: {
      name: 'webhook-deliveries',
      batchSize: 10,
      maxReceiveCount: 5,
      maxConcurrency: 50,
      // A retry waits at most 15 minutes on the queue; longer waits go through the due-time index.
      alarmAgeMinutes: 30,
      orgShare: true,
      fromBus: {
        id: 'DeliverWebhooks',
        description:
          "Every domain event goes to the webhook dispatcher, which fans it out to the organisation's subscriptions",
        pattern: ALL_DOMAIN_EVENTS,
        // The dispatcher forwards each event as a fan-out job in its organisation's group before fanning it out, so
        // the fan-out's tenant is the organisation too, not only the attempts' (shared/domain/webhooks/dispatch.ts).
      },
    },
  },
  /**
   * The attempts of slow receivers (their last attempt took 3 s or more, or timed out) → slow-receiver-dispatcher, the
   * dispatcher's code in a pool of its own: slow receivers wait on each other here, never on the healthy receivers'
   * pool above (CONTRACT §18). Every rule of §18 holds here as there (2 attempts in flight per subscription, 10 s, the
   * slow lane after 5 failures, Retry-After); each organisation holds at most a quarter of these 10 invocations.
   */
  'slow-receiver-dispatcher': {
    concern: 'Webhooks',
    access: { table: 'readWrite', webhookSecrets: 'open', sendsTo: ['webhook-deliveries', 'webhook-slow-receivers'] },
    settings: ['WEBHOOK_RETRY_SCHEDULE_SECONDS'],
    timeoutSeconds: 60,
    queue: {
      name: 'webhook-slow-receivers',
      batchSize: 10,
      maxReceiveCount: 5,
      maxConcurrency: 10,
      alarmAgeMinutes: 30,
      orgShare: true,
    },
  },
  /** Puts webhook deliveries whose long retry wait is over back on the queue. */
  'webhook-sweeper': {
    concern: 'Webhooks',
    access: {
      table: 'readWrite',
      // Its due list (webhookKeys.due).
      global: { queries: [{ index: 'GSI1', partitions: ['DLV#DUE'] }] },
      sendsTo: ['webhook-deliveries'],
    },
    ...SWEEP,
  },

  // Reports: requests, listing and downloads, schedules, with the report worker and the sweepers.
  'request-report': {
    concern: 'Reports',
    access: { table: 'readWrite', sendsTo: ['report-requests'] },
    settings: ['REPORT_WINDOW_SECONDS'],
  },
  'list-reports': { concern: 'Reports', access: { table: 'read' } },
  'get-report': { concern: 'Reports', access: { table: 'read' } },
  // Signs download URLs: the URL carries this role's permission to read the object. The functions holding the
  // reports bucket share its retention.
  'download-report': {
    concern: 'Reports',
    access: { table: 'read', reports: 'read' },
    settings: ['REPORT_DOWNLOAD_URL_TTL_SECONDS', 'REPORT_RETENTION_SECONDS'],
  },
  /**
   * Report requests → report-worker. One report per invocation with Lambda's longest timeout (15 min): a report
   * streams its CSV, so memory does not grow with rows; 1 GB buys the CPU for CSV encoding and holds the two
   * 5 MiB upload parts in flight, a page of 500 records and the bounded join cache (bench/RESULTS.md).
   */
  'report-worker': {
    concern: 'Reports',
    access: {
      table: 'readWrite',
      indexes: ['GSI2'],
      batchGets: true,
      reports: 'write',
      publishesEvents: true,
      sendsTo: ['report-requests'],
    },
    settings: ['REPORT_RETENTION_SECONDS', 'NETWORK_RETRY_BASE_SECONDS'],
    timeoutSeconds: 900,
    memoryMb: 1024,
    // A small young generation and a capped heap make V8 collect the CSV garbage early: peak RSS stays near the
    // live set (about 40 MB for a 1,000,000-row report) instead of growing with allocation (bench/RESULTS.md).
    nodeOptions: REPORT_WORKER_NODE_OPTIONS,
    queue: {
      name: 'report-requests',
      // One report per invocation, so the fair queue sees a heavy organisation by its share of processing time (a
      // report runs for minutes), not by in-flight counts. An organisation runs at most a quarter of the 12 workers
      // at once (3 of its 9 types; orgShare below), so however many organisations run all nine, another's report
      // still finds a free worker while fewer than four do, and the fair queue hands it over first (CONTRACT §18).
      batchSize: 1,
      // On the last receive the worker marks the report FAILED (shared/domain/reports/run-report.ts).
      maxReceiveCount: REPORT_REQUEST_RECEIVES,
      maxConcurrency: 12,
      // Workers of at most 15 minutes each.
      alarmAgeMinutes: 30,
      // A report runs for seconds to minutes: an organisation runs at most a quarter of the pool's reports at once.
      orgShare: true,
    },
  },
  /**
   * Fails reports stuck past REPORT_PROCESSING_TIMEOUT_SECONDS, re-queues stranded ones, republishes events; deletes
   * expired report files (GSI2's expiry list), under the reports' key pattern only.
   */
  'report-sweeper': {
    concern: 'Reports',
    access: {
      table: 'readWrite',
      // Its due lists: open and unannounced reports, and the files to expire.
      global: {
        queries: [
          { index: 'GSI1', partitions: [reportKeys.openPartition, reportKeys.unpublishedPartition] },
          { index: 'GSI2', partitions: [reportKeys.expiringPartition] },
        ],
      },
      reports: 'expire',
      publishesEvents: true,
      sendsTo: ['report-requests'],
    },
    settings: ['REPORT_PROCESSING_TIMEOUT_SECONDS', 'REPORT_RETENTION_SECONDS'],
    ...SWEEP,
  },
  'create-report-schedule': {
    concern: 'Reports',
    access: { table: 'readWrite' },
    settings: ['REPORT_SCHEDULE_LIMIT'],
  },
  'list-report-schedules': { concern: 'Reports', access: { table: 'read' } },
  'get-report-schedule': { concern: 'Reports', access: { table: 'read' } },
  'update-report-schedule': { concern: 'Reports', access: { table: 'readWrite' } },
  'delete-report-schedule': { concern: 'Reports', access: { table: 'readWrite' } },
  /**
   * Requests the reports of report schedules whose occurrence is due (CONTRACT §23), each occurrence once: reads the
   * due index (GSI1), claims occurrences and requests their reports as request-report does.
   */
  'report-schedule-sweeper': {
    concern: 'Reports',
    access: {
      table: 'readWrite',
      global: { queries: [{ index: 'GSI1', partitions: [scheduleKeys.duePartition] }] },
      sendsTo: ['report-requests'],
    },
    settings: ['REPORT_WINDOW_SECONDS'],
    ...SWEEP,
  },

  // Network: Meta's webhook, the verification handshake, the signed notifications kept, and the worker applying them.
  'verify-network-webhook': { concern: 'Network', access: { verifiesNetworkWebhooks: true } },
  // Internet-facing: verifies and keeps Meta's notifications, and reads nothing of any organisation (CONTRACT §21).
  'receive-network-webhook': {
    concern: 'Network',
    access: { verifiesNetworkWebhooks: true, sendsTo: ['network-notifications'] },
  },
  /**
   * Meta's notifications, as the internet-facing network webhook kept them → apply-network-notifications, which sorts
   * each by organisation and forwards it in that organisation's group before applying it (CONTRACT §21). Meta was
   * answered 200 already, so this queue is what keeps them: ten receives with backoff (about 50 minutes of a failing
   * dependency) before the DLQ, whose alarm asks for a redrive.
   */
  'apply-network-notifications': {
    concern: 'Network',
    access: {
      table: 'readWrite',
      // LEADING_KEY_PATTERNS.networkWebhook's partitions of no organisation; the rest with each organisation's.
      global: {
        // The links from Meta's ids; events recorded before the outbox moved into the organisations' partitions.
        items: [{ keys: ['WAREQ#*', 'WAGROUP#*', 'WAMSG#*', 'EVENT#*'], access: 'readWrite' }],
        // A change's channel (and so its organisation) by phone-number id.
        queries: [{ index: 'GSI1', partitions: ['WAPHONE#*'] }],
      },
      publishesEvents: true,
      callsNetwork: true,
      // Forwards each organisation's part of a notification in that organisation's group.
      sendsTo: ['network-notifications'],
    },
    timeoutSeconds: 30,
    queue: {
      name: 'network-notifications',
      // 10 × 10 = 100 in flight: twice the 30 a tenant needs before SQS fair queues can detect a flooding one (§18).
      batchSize: 10,
      maxReceiveCount: 10,
      maxConcurrency: 10,
      alarmAgeMinutes: 15,
    },
    alerts: [
      {
        alert: NETWORK_NOTIFICATION_UNREADABLE,
        metricName: 'NetworkNotificationsUnreadable',
        description:
          'An item of a signed Meta notification could not be read and was skipped (the rest of its batch was applied): Meta may have changed a shape (CONTRACT §16; the log line names field, type and reason)',
      },
    ],
  },

  // The events feed (CONTRACT §20), in the Webhooks concern: the reader reads its organisation's feed partition; the
  // writer appends to it.
  'list-events': { concern: 'Webhooks', access: { table: 'read' }, settings: ['EVENT_RETENTION_SECONDS'] },
  /**
   * Every domain event from the bus → feed-writer, which forwards it in its organisation's message group (as the
   * dispatcher forwards its fan-outs: EventBridge gives it none) and then appends it to its organisation's event feed
   * (CONTRACT §20). In its group, one organisation's burst is that organisation's backlog in the fair queue, not the
   * head of everyone's line (issue 35). A batch's events of one organisation become one compare-and-set of the feed's
   * head, so a batch of 10 costs one commit per organisation in it. Ten receives before the DLQ: a busy head makes a
   * writer retry, never fail, so a message that keeps failing is a real fault. Its own queue, like every consumer: a
   * suspended organisation's event goes back to it, a failed one gets its backoff; it reads the markers and writes the
   * items in batches.
   */
  'feed-writer': {
    concern: 'Webhooks',
    access: { table: 'readWrite', batchGets: true, batchWrites: true, sendsTo: ['event-feed'] },
    settings: ['EVENT_RETENTION_SECONDS'],
    timeoutSeconds: 30,
    queue: {
      name: 'event-feed',
      batchSize: 10,
      maxReceiveCount: 10,
      maxConcurrency: 10,
      // Publication to visibility is p99 ≤ 5 s (CONTRACT §20): a minute of age means the feed falls behind.
      alarmAgeMinutes: 5,
      fromBus: {
        id: 'AppendToFeed',
        description: "Every domain event goes to the feed writer, which appends it to its organisation's event feed",
        pattern: ALL_DOMAIN_EVENTS,
        // The feed writer forwards each event as an append job in its organisation's group
        // (shared/domain/events/feed.ts).
      },
    },
  },
};

/** A queue with its consumer's figures, as both local stacks and the queue constructs read it. */
export interface QueueDef extends Omit<QueueSpec, 'fromBus'> {
  /** The consumer function folder under functions/. */
  consumer: string;
  /** The consumer's timeout; the queue's visibility timeout is 6× this (AWS guidance). */
  timeoutSeconds: number;
  memoryMb?: number;
  nodeOptions?: string;
}

/** A scheduled function (sweeper): an EventBridge schedule on AWS, a timer at WPCRM_SWEEP_INTERVAL_MS locally. */
export interface ScheduleDef {
  name: string;
  fn: string;
  /** The AWS schedule rate in minutes. */
  everyMinutes: number;
}

type Rows = Readonly<Record<string, FunctionRow>>;

/** The workers' queues of `rows`, in the table's order. */
export function queuesOf(rows: Rows): QueueDef[] {
  return Object.entries(rows).flatMap(([fn, row]) => {
    if (!row.queue) return [];
    const { fromBus: _, ...queue } = row.queue;
    const { timeoutSeconds = 10, memoryMb, nodeOptions } = row;
    return [{ ...queue, consumer: fn, timeoutSeconds, memoryMb, nodeOptions }];
  });
}

/** The sweepers of `rows`, in the table's order. */
export function schedulesOf(rows: Rows): ScheduleDef[] {
  return Object.entries(rows).flatMap(([fn, row]) =>
    row.everyMinutes === undefined ? [] : [{ name: fn, fn, everyMinutes: row.everyMinutes }],
  );
}

/** The bus rules of `rows`, each sending to its worker's queue. */
export function busRulesOf(rows: Rows): BusRule[] {
  return Object.values(rows).flatMap((row) =>
    row.queue?.fromBus ? [{ ...row.queue.fromBus, targetQueue: row.queue.name }] : [],
  );
}

/** The workers' queues, in the table's order. */
export const QUEUES: readonly QueueDef[] = queuesOf(FUNCTIONS);

/** The sweepers, in the table's order. */
export const SCHEDULES: readonly ScheduleDef[] = schedulesOf(FUNCTIONS);

/**
 * The bus rules, each sending to its worker's queue: the local bus applies them, the CDK stack turns them into
 * EventBridge rules.
 */
export const BUS_RULES: readonly BusRule[] = busRulesOf(FUNCTIONS);

/** The row of `fn` in `rows`; a function without one fails the synth and names itself. */
export function functionRow(fn: string, rows: Rows = FUNCTIONS): FunctionRow {
  const row = rows[fn];
  if (!row) throw new Error(`function ${fn} has no row: add it to FUNCTIONS (infra/aws/functions.ts)`);
  return row;
}

/**
 * Whether the function acts for organisations (CONTRACT §25): it reads or writes their items (`table` without
 * `tableKeys`), report files, webhook secrets or channel tokens, with each organisation's credentials (the stage's
 * tenant-access role), never its own role's.
 */
export function actsForOrganisations(access: FunctionAccess): boolean {
  return (
    (access.table !== undefined && access.tableKeys === undefined) ||
    access.reports !== undefined ||
    access.webhookSecrets !== undefined ||
    access.callsNetwork === true
  );
}
