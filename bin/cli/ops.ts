import { QueryCommand, type QueryCommandInput, ScanCommand, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import { QUEUES } from '#infra/aws/functions';
import { groupKeys, reportKeys, webhookKeys } from '#shared/adapters/dynamodb/keys';
import { loadConfig } from '#shared/config/env';
import type { GroupRequest } from '#shared/domain/groups/group-request';
import { RECHECK_HOLD_AFTER_SECONDS } from '#shared/domain/groups/sweep-group-requests';
import type { Report } from '#shared/domain/reports/report';
import type { Subscription } from '#shared/domain/webhooks/subscription';
import { type Command, command } from './command.ts';
import { invalid } from './errors.ts';
import type { OpsSources, QueuePair } from './ops-sources.ts';
import type { Target } from './target.ts';

const ORG_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function optionalOrg(value: string | undefined): string | undefined {
  if (value !== undefined && !ORG_ID.test(value)) throw invalid('--org must be an organisation id (a lowercase UUID)');
  return value;
}

function count(flag: string, value: string | undefined, fallback: number | undefined, max: number) {
  if (value === undefined) return fallback;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw invalid(`--${flag} must be an integer from 1 to ${max}`);
  }
  return Number(value);
}

/** `--queue`: one of the catalog's queues, checked before any stack is asked. */
function queueName(value: string): string {
  const names = QUEUES.map((def) => def.name);
  if (!names.includes(value)) throw invalid(`--queue must be one of ${names.join(', ')}; got ${value}`);
  return value;
}

/**
 * Connects, opens the queue and metrics sources, and closes them whatever happens. The SQS, CloudWatch and
 * CloudFormation clients load only here, so the other commands start no slower.
 */
async function withSources<T>(
  connect: () => Promise<Target>,
  use: (target: Target, sources: OpsSources) => Promise<T>,
) {
  const target = await connect();
  const { opsSources } = await import('./ops-sources.ts');
  const sources = await opsSources(target);
  try {
    return await use(target, sources);
  } finally {
    sources.close();
  }
}

/** Every item of a query or scan, page by page, up to `cap` items. */
async function allItems<T>(target: Target, input: QueryCommandInput | ScanCommandInput, cap = 10_000): Promise<T[]> {
  const items: T[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page =
      'KeyConditionExpression' in input && input.KeyConditionExpression
        ? await target.db.send(new QueryCommand({ ...(input as QueryCommandInput), ExclusiveStartKey }))
        : await target.db.send(new ScanCommand({ ...(input as ScanCommandInput), ExclusiveStartKey }));
    items.push(...((page.Items ?? []) as T[]));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey && items.length < cap);
  return items;
}

/** The items of a sparse GSI1 partition (open group requests, open reports). */
const sparseIndex = <T>(target: Target, partition: string) =>
  allItems<T>(target, {
    TableName: target.tableName,
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': partition },
  });

/** Group requests on hold (CONTRACT §5, Meta 190 / 368): the sweeper tries each again 5 minutes after its last try. */
async function heldRequests(target: Target, org: string | undefined) {
  const timeoutSeconds = loadConfig(process.env).groups.confirmationTimeoutSeconds;
  const open = await sparseIndex<GroupRequest>(target, groupKeys.openPartition);
  return open
    .filter((request) => request.onHold && (!org || request.orgId === org))
    .map((request) => ({
      orgId: request.orgId,
      requestId: request.requestId,
      channelId: request.channelId,
      status: request.status,
      code: request.onHold!.code,
      message: request.onHold!.message,
      heldSince: request.onHold!.since,
      nextTryAt: new Date(Date.parse(request.updatedAt) + RECHECK_HOLD_AFTER_SECONDS * 1000).toISOString(),
      failsAt: new Date(Date.parse(request.createdAt) + timeoutSeconds * 1000).toISOString(),
    }));
}

/** Subscriptions: one organisation's partition, or (without --org) every subscription item of the table. */
async function subscriptions(target: Target, org: string | undefined) {
  const prefix = webhookKeys.subscriptionPrefix;
  const items = org
    ? await allItems<Subscription>(target, {
        TableName: target.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': `ORG#${org}`, ':prefix': prefix },
      })
    : await allItems<Subscription>(
        target,
        {
          TableName: target.tableName,
          FilterExpression: 'begins_with(SK, :prefix) AND (#status = :disabled OR attribute_exists(failingSince))',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':prefix': prefix, ':disabled': 'disabled' },
          ProjectionExpression: 'webhookId, orgId, #status, disabledReason, failingSince',
        },
        Number.POSITIVE_INFINITY,
      );
  const disabled = items.filter((item) => item.status === 'disabled');
  const failing = items.filter((item) => item.status === 'active' && item.failingSince);
  const view = ({ webhookId, orgId, disabledReason, failingSince }: Subscription) => ({
    webhookId,
    orgId,
    ...(disabledReason ? { disabledReason } : {}),
    ...(failingSince ? { failingSince } : {}),
  });
  return { disabled: disabled.map(view), failing: failing.map(view) };
}

const queueView = (pair: QueuePair) => ({
  queue: pair.queue,
  depth: pair.source.depth,
  inFlight: pair.source.inFlight,
  oldestAgeSeconds: pair.source.oldestAgeSeconds,
  deadLetter: {
    depth: pair.deadLetter.depth + pair.deadLetter.inFlight,
    oldestAgeSeconds: pair.deadLetter.oldestAgeSeconds,
  },
});

/** The operators' stuck-work and status commands (CONTRACT §17), by `<noun> <verb>`. */
export const OPS_COMMANDS: Record<string, Command> = {
  'dlq list': command({
    summary: 'Each queue\'s dead-letter queue: {"deadLetterQueues":[{"queue","depth","oldestAgeSeconds"}]}.',
    flags: {},
    run: (_flags, connect) =>
      withSources(connect, async (_target, sources) => ({
        deadLetterQueues: (await sources.queues()).map((pair) => ({
          queue: pair.queue,
          depth: pair.deadLetter.depth + pair.deadLetter.inFlight,
          oldestAgeSeconds: pair.deadLetter.oldestAgeSeconds,
        })),
      })),
  }),

  'dlq show': command({
    summary:
      'Messages in a queue\'s DLQ, left there: {"queue","messages":[{"messageId","body","receiveCount","sentAt","firstFailureAt"}]}. --limit 1–100 (10).',
    flags: { queue: { value: '<queue>', required: true }, limit: { value: '<n>' } },
    run: (flags, connect) => {
      const name = queueName(flags.queue);
      const limit = count('limit', flags.limit, 10, 100)!;
      return withSources(connect, async (_target, sources) => {
        const pair = sources.pairNamed(await sources.queues(), name);
        return { queue: name, messages: await sources.peek(pair, limit) };
      });
    },
  }),

  'dlq redrive': command({
    summary:
      'Moves a DLQ\'s messages back to their queue (on AWS with SQS\'s message move task; --max moves at most N one by one): {"queue","moved"}.',
    flags: { queue: { value: '<queue>', required: true }, max: { value: '<n>' } },
    run: (flags, connect) => {
      const name = queueName(flags.queue);
      const max = count('max', flags.max, undefined, 100_000);
      return withSources(connect, async (_target, sources) => {
        const pair = sources.pairNamed(await sources.queues(), name);
        return { queue: name, ...(await sources.redrive(pair, max)) };
      });
    },
  }),

  'requests held': command({
    summary:
      'Group requests on hold (Meta 190 / 368): {"requests":[{"orgId","requestId","channelId","code","message","heldSince","nextTryAt","failsAt"}]}.',
    flags: { org: { value: '<orgId>' } },
    run: async (flags, connect) => {
      const org = optionalOrg(flags.org);
      return { requests: await heldRequests(await connect(), org) };
    },
  }),

  status: command({
    summary:
      'The service at a glance: queues and DLQs, held requests, reports running, subscriptions disabled or failing, alarms in ALARM (AWS), last 24 h counts.',
    flags: { org: { value: '<orgId>' } },
    run: (flags, connect) => {
      const org = optionalOrg(flags.org);
      return withSources(connect, async (target, sources) => {
        const since = new Date(Date.now() - 24 * 3600 * 1000);
        const [queues, held, reports, subs, alarms, counts] = await Promise.all([
          sources.queues(),
          heldRequests(target, org),
          sparseIndex<Report>(target, reportKeys.openPartition),
          subscriptions(target, org),
          sources.alarmsFiring(),
          sources.counts(since),
        ]);
        const running = reports.filter((report) => !org || report.organisationId === org);
        return {
          target: target.kind,
          ...(org ? { orgId: org } : {}),
          generatedAt: new Date().toISOString(),
          queues: queues.map(queueView),
          heldRequests: { count: held.length, requests: held },
          reports: {
            pending: running.filter((report) => report.status === 'PENDING').length,
            processing: running.filter((report) => report.status === 'PROCESSING').length,
          },
          subscriptions: subs,
          // The local stacks have no CloudWatch alarms; null says "not known", not "none".
          alarmsInAlarm: alarms ?? null,
          // Service-wide, as the metrics have no organisation dimension.
          last24h: counts,
        };
      });
    },
  }),
};
