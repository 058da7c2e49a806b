import { deps } from '#shared/config/deps';
import { createChannel, createCredential, createOrg } from '#shared/domain/orgs/administer';
import { REPORT_TYPES } from '#shared/domain/reports/records';
import { eventually } from './eventually.ts';
import type { TestStack } from './local-stack.ts';
import { Receiver } from './receiver.ts';

/** A small seeded PRNG (mulberry32): the same seed gives the same workload and fault schedule. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface LedgerOptions {
  seed: number;
  /** How long the workload and the faults run, in ms. */
  durationMs: number;
  organisations: number;
  /** Probability that a queue delivers a received message again. */
  duplicateDeliveries: number;
}

interface Attempt {
  orgId: string;
  key: string;
  subject: string;
  /** The requestId once the service acknowledged it (202); undefined while the outcome is unknown. */
  requestId?: string;
}

/** What the run did and found: the figures docs/RELIABILITY.md records. */
export interface LedgerResult {
  seed: number;
  operations: { groupCreates: number; duplicateSubmits: number; clientTimeouts: number; reports: number };
  acknowledged: { groups: number; reports: number; indeterminateResolved: number };
  faults: Record<string, number>;
  /** When each fault was injected. */
  faultLog: string[];
  final: { created: number; failed: number; completed: number; reportsFailed: number };
  /** Acknowledged requests and reports still open when the drain gave up. */
  notFinal: string[];
  lost: string[];
  /** For each lost request: live and committed groups of its subject, its record, Graph calls and notifications. */
  lostTrace: Record<string, unknown>;
  groupsPerRequestMax: number;
  unexpectedGroups: string[];
  liveGroupsOfFailedRequests: string[];
  eventsMissing: string[];
  /** For each missing event: how often it reached the bus, and its deliveries (status, attempts, last error). */
  missingEventTrace: Record<string, unknown>;
  /** For each request still open: its stored record, Meta's request id link, a held confirmation, Graph calls and notifications. */
  notFinalTrace: Record<string, unknown>;
  deadLetters: Record<string, number>;
  /** The bodies held by each non-empty dead-letter queue, so that a failed run says what was dead-lettered. */
  deadLetterBodies: Record<string, string[]>;
  drainMs: number;
  /** How the drain's time was spent: resolving unknown outcomes, waiting for final states, waiting for events. */
  drainPhasesMs: { resolve: number; settle: number; events: number };
}

interface Tenant {
  orgId: string;
  channelId: string;
  token: string;
  webhookId: string;
}

/**
 * A Jepsen-style ledger run (RELIABILITY K-4) against the local stack: clients create groups (with retries, duplicate
 * submits and timeouts whose outcome they do not learn) and request reports while a seeded nemesis duplicates queue
 * deliveries and Meta's notifications, makes Graph answer 429, 5xx, late or not at all after committing, restarts
 * DynamoDB and takes the webhook receiver down. Then the faults stop, every unknown outcome is resolved by retrying
 * with its Idempotency-Key, the system drains, and the ledger is checked.
 */
export async function runLedger(api: TestStack, options: LedgerOptions): Promise<LedgerResult> {
  const random = seededRandom(options.seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const simulator = api.stack.simulator!;
  const receiver = await new Receiver().start();
  const faults: Record<string, number> = {};
  const faultLog: string[] = [];
  const count = (name: string) => {
    faults[name] = (faults[name] ?? 0) + 1;
    faultLog.push(`${new Date().toISOString()} ${name}`);
  };
  try {
    // Meta retries a notification for days; the run must not lose one to a short outage.
    simulator.options.webhookAttempts = 40;
    simulator.options.webhookRetryDelayMs = 100;
    const tenants: Tenant[] = [];
    for (let index = 0; index < options.organisations; index++) tenants.push(await tenant(api, index, receiver));

    const attempts: Attempt[] = [];
    const reports: { orgId: string; reportId: string }[] = [];
    const operations = { groupCreates: 0, duplicateSubmits: 0, clientTimeouts: 0, reports: 0 };
    const submit = async (attempt: Attempt, tenant: Tenant, timeoutMs?: number) => {
      try {
        const response = await api.call(`/groups/${tenant.orgId}`, {
          method: 'POST',
          token: tenant.token,
          headers: { 'idempotency-key': attempt.key },
          json: { channelId: tenant.channelId, subject: attempt.subject },
          signal: timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs),
        });
        if (response.status === 202) attempt.requestId = ((await response.json()) as { requestId: string }).requestId;
      } catch {
        // A timeout or a reset: the client does not know whether the service acted.
      }
    };

    for (const queue of api.stack.queues.values()) queue.duplicateDeliveries(options.duplicateDeliveries, random);
    const nemesis = scheduleNemesis(api, receiver, random, options.durationMs, count);
    const started = Date.now();
    const inFlight: Promise<unknown>[] = [];
    let sequence = 0;
    while (Date.now() - started < options.durationMs) {
      const tenant = pick(tenants);
      const roll = random();
      if (roll < 0.6) {
        const attempt: Attempt = {
          orgId: tenant.orgId,
          key: `ledger-${options.seed}-${sequence}`,
          subject: `L${sequence}`,
        };
        sequence += 1;
        attempts.push(attempt);
        operations.groupCreates += 1;
        const timeout = random() < 0.15 ? 1 + Math.floor(random() * 30) : undefined;
        if (timeout !== undefined) operations.clientTimeouts += 1;
        inFlight.push(submit(attempt, tenant, timeout));
        if (random() < 0.2) {
          operations.duplicateSubmits += 1;
          inFlight.push(submit(attempt, tenant));
        }
      } else if (roll < 0.8 && attempts.length > 0) {
        const earlier = pick(attempts);
        operations.duplicateSubmits += 1;
        inFlight.push(submit(earlier, tenants.find((candidate) => candidate.orgId === earlier.orgId)!));
      } else {
        operations.reports += 1;
        inFlight.push(
          api
            .call(`/reports/${tenant.orgId}`, {
              method: 'POST',
              token: tenant.token,
              json: { reportType: pick(REPORT_TYPES) },
            })
            .then(async (response) => {
              if (response.status === 202) {
                reports.push({
                  orgId: tenant.orgId,
                  reportId: ((await response.json()) as { reportId: string }).reportId,
                });
              }
            })
            .catch(() => undefined),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20 + random() * 80));
    }
    await Promise.all(inFlight);
    await nemesis;

    // The faults stop; clients learn every outcome by retrying with the same key.
    for (const queue of api.stack.queues.values()) queue.duplicateDeliveries(0);
    simulator.options.latencyMs = 0;
    simulator.setDuplicates(0);
    const drainStarted = Date.now();
    let indeterminateResolved = 0;
    for (const attempt of attempts.filter((candidate) => !candidate.requestId)) {
      const tenant = tenants.find((candidate) => candidate.orgId === attempt.orgId)!;
      await eventually(
        async () => {
          await submit(attempt, tenant);
          if (!attempt.requestId) throw new Error(`no answer yet for ${attempt.key}`);
        },
        { timeoutMs: 90_000, intervalMs: 500 },
      );
      indeterminateResolved += 1;
    }

    const resolvedAt = Date.now();
    const requestIds = [...new Set(attempts.map((attempt) => `${attempt.orgId}/${attempt.requestId}`))];
    const statuses = new Map<string, { status: string; chatId?: string }>();
    const reportStatuses = new Map<string, string>();
    const settled = await eventually(
      async () => {
        for (const id of requestIds) {
          if (['created', 'failed'].includes(statuses.get(id)?.status ?? '')) continue;
          const [orgId, requestId] = id.split('/');
          const tenant = tenants.find((candidate) => candidate.orgId === orgId)!;
          const response = await api.call(`/groups/${orgId}/creation-status/${requestId}`, { token: tenant.token });
          statuses.set(id, (await response.json()) as { status: string; chatId?: string });
        }
        for (const { orgId, reportId } of reports) {
          if (['COMPLETED', 'FAILED'].includes(reportStatuses.get(reportId) ?? '')) continue;
          const tenant = tenants.find((candidate) => candidate.orgId === orgId)!;
          const response = await api.call(`/reports/${orgId}/${reportId}`, { token: tenant.token });
          reportStatuses.set(reportId, ((await response.json()) as { status: string }).status);
        }
        const open = [...statuses.values()].filter((status) => !['created', 'failed'].includes(status.status));
        const openReports = [...reportStatuses.values()].filter((status) => !['COMPLETED', 'FAILED'].includes(status));
        if (open.length + openReports.length > 0) {
          throw new Error(`${open.length} group requests and ${openReports.length} reports not final yet`);
        }
        return true;
      },
      { timeoutMs: 180_000, intervalMs: 500 },
    ).catch(() => false);
    const settledAt = Date.now();
    const notFinal = [
      ...[...statuses.entries()]
        .filter(([, status]) => !['created', 'failed'].includes(status.status))
        .map(([id, status]) => `${id} ${JSON.stringify(status)}`),
      ...[...reportStatuses.entries()]
        .filter(([, status]) => !['COMPLETED', 'FAILED'].includes(status))
        .map(([id, status]) => `${id} ${status}`),
    ];
    const expectedEvents = [
      ...[...statuses.entries()].map(
        ([id, status]) =>
          `${id.split('/')[1]} ${status.status === 'created' ? 'group.created' : 'group.creation_failed'}`,
      ),
      ...reports.map(
        ({ reportId }) =>
          `${reportId} ${reportStatuses.get(reportId) === 'COMPLETED' ? 'report.completed' : 'report.failed'}`,
      ),
    ];
    const delivered = () =>
      new Set(
        receiver.received.map((request) => {
          const body = JSON.parse(request.body) as { type: string; request_id?: string; report_id?: string };
          return `${body.request_id ?? body.report_id} ${body.type}`;
        }),
      );
    const eventsMissing = await eventually(
      () => {
        const seen = delivered();
        const missing = expectedEvents.filter((event) => !seen.has(event));
        if (missing.length > 0) throw new Error(`${missing.length} events not delivered yet`);
        return missing;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    ).catch(() => expectedEvents.filter((event) => !delivered().has(event)));
    const eventsAt = Date.now();

    // The network's side: each request made at most one group (committed creates, from the Graph request log), a
    // created request has its group, a failed one none left, and no group exists that no client asked for.
    const committed = new Map<string, number>();
    for (const entry of simulator.requestLog) {
      const made =
        entry.status === 200 || entry.fault === 'timeout-after-commit' || entry.fault === 'reset-after-commit';
      const subject = (entry.body as { subject?: string } | undefined)?.subject;
      if (entry.method === 'POST' && entry.path.endsWith('/groups') && made && subject) {
        committed.set(subject, (committed.get(subject) ?? 0) + 1);
      }
    }
    const liveBySubject = new Map<string, number>();
    for (const group of simulator.groups())
      liveBySubject.set(group.subject, (liveBySubject.get(group.subject) ?? 0) + 1);
    const subjectOf = new Map(attempts.map((attempt) => [`${attempt.orgId}/${attempt.requestId}`, attempt.subject]));
    const acknowledgedSubjects = new Set(attempts.map((attempt) => attempt.subject));
    const live = (subject: string) => liveBySubject.get(subject) ?? 0;
    const lost = [...statuses.entries()]
      .filter(([id, status]) => status.status === 'created' && live(subjectOf.get(id)!) !== 1)
      .map(([id]) => id);
    // What each lost request's subject has on the network's side, and the request's own record and calls.
    const lostTrace = {
      network: Object.fromEntries(
        await Promise.all(
          lost.map(async (id) => {
            const subject = subjectOf.get(id)!;
            const groups = simulator.groups().filter((group) => group.subject === subject);
            return [
              id,
              {
                subject,
                live: live(subject),
                committed: committed.get(subject) ?? 0,
                status: statuses.get(id),
                groups: await Promise.all(
                  groups.map(async (group) => ({
                    id: group.groupId,
                    requestId: group.requestId,
                    createdAt: group.createdAt,
                    linked: await deps().chats.findExternalChat(group.groupId),
                  })),
                ),
              },
            ];
          }),
        ),
      ),
      requests: await traceRequests(api, lost),
    };

    return {
      seed: options.seed,
      operations,
      acknowledged: {
        groups: requestIds.length,
        reports: reports.length,
        indeterminateResolved,
      },
      faults: {
        ...faults,
        queueDuplicates: [...api.stack.queues.values()].reduce((sum, queue) => sum + queue.duplicated, 0),
      },
      faultLog,
      final: {
        created: [...statuses.values()].filter((status) => status.status === 'created').length,
        failed: [...statuses.values()].filter((status) => status.status === 'failed').length,
        completed: [...reportStatuses.values()].filter((status) => status === 'COMPLETED').length,
        reportsFailed: [...reportStatuses.values()].filter((status) => status === 'FAILED').length,
      },
      notFinal: settled ? [] : notFinal,
      lost,
      lostTrace,
      groupsPerRequestMax: Math.max(0, ...committed.values()),
      unexpectedGroups: [...liveBySubject.keys()].filter(
        (subject) => subject.startsWith('L') && !acknowledgedSubjects.has(subject),
      ),
      liveGroupsOfFailedRequests: [...statuses.entries()]
        .filter(([id, status]) => status.status === 'failed' && live(subjectOf.get(id)!) > 0)
        .map(([id]) => id),
      eventsMissing,
      missingEventTrace: await traceEvents(api, tenants, eventsMissing),
      deadLetters: Object.fromEntries(
        [...api.stack.queues.entries()]
          .filter(([name]) => name.endsWith('-dlq'))
          .map(([name, queue]) => [name, queue.size]),
      ),
      deadLetterBodies: Object.fromEntries(
        [...api.stack.queues.entries()]
          .filter(([name, queue]) => name.endsWith('-dlq') && queue.size > 0)
          .map(([name, queue]) => [name, queue.peek().map((body) => body.slice(0, 2000))]),
      ),
      notFinalTrace: await traceRequests(
        api,
        [...statuses.entries()]
          .filter(([, status]) => !['created', 'failed'].includes(status.status))
          .map(([id]) => id),
      ),
      drainMs: Date.now() - drainStarted,
      drainPhasesMs: {
        resolve: resolvedAt - drainStarted,
        settle: settledAt - resolvedAt,
        events: eventsAt - settledAt,
      },
    };
  } finally {
    await receiver.stop();
  }
}

/** Where an open request stopped: its record, the link of Meta's request id, a held confirmation, the network's side. */
async function traceRequests(api: TestStack, ids: string[]): Promise<Record<string, unknown>> {
  const simulator = api.stack.simulator!;
  const trace: Record<string, unknown> = {};
  for (const id of ids) {
    const [orgId, requestId] = id.split('/') as [string, string];
    const request = await deps().groups.get(orgId, requestId);
    const networkRequestId = request?.networkRequestId;
    trace[id] = {
      request,
      link: networkRequestId ? await deps().groups.findNetworkRequest(networkRequestId) : undefined,
      held: networkRequestId ? await deps().groups.heldConfirmation(orgId, networkRequestId) : undefined,
      graphCalls: simulator.requestLog.filter(
        (entry) => (entry.body as { subject?: string } | undefined)?.subject === request?.subject,
      ),
      queued: [...api.stack.queues.entries()].flatMap(([name, queue]) =>
        queue
          .held()
          .filter((message) => message.body.includes(requestId))
          .map((message) => ({
            queue: name,
            visibleAt: new Date(message.visibleAt).toISOString(),
            receiveCount: message.receiveCount,
          })),
      ),
      graphLog: simulator.requestLog.filter((entry) => entry.method === 'GET' && entry.path.endsWith('/groups')).length,
      notifications: simulator.webhookLog
        .filter((delivery) => networkRequestId && delivery.rawBody.includes(networkRequestId))
        .map(({ rawBody: _rawBody, ...rest }) => rest),
    };
  }
  return trace;
}

/** Where a missing event stopped: on the bus (how often) and in each tenant's deliveries. */
async function traceEvents(api: TestStack, tenants: Tenant[], missing: string[]): Promise<Record<string, unknown>> {
  const trace: Record<string, unknown> = {};
  for (const event of missing) {
    const [id] = event.split(' ');
    const published = api.stack.bus.published.filter(
      (entry) => entry.detail.request_id === id || entry.detail.report_id === id,
    );
    const deliveries: { deliveryId: string }[] = [];
    for (const { orgId, webhookId } of tenants) {
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await deps().webhooks.listDeliveries(orgId, webhookId, { limit: 100, startKey });
        for (const delivery of page.items) {
          if (delivery.body.includes(id!)) {
            const { body: _body, ...rest } = delivery;
            deliveries.push(rest);
          }
        }
        startKey = page.nextKey;
      } while (startKey);
    }
    const records = [];
    for (const { orgId } of tenants) {
      const record = id?.startsWith('rpt_') ? await deps().reports.get(orgId, id) : await deps().groups.get(orgId, id!);
      if (record) records.push(record);
    }
    trace[event] = {
      published: published.map((entry) => `${entry.time} ${entry['detail-type']}`),
      record: records[0],
      queued: [...api.stack.queues.entries()].flatMap(([name, queue]) =>
        queue
          .held()
          // The event's jobs name the request or report; its attempt jobs name only the delivery.
          .filter(
            (message) =>
              message.body.includes(id!) || deliveries.some((delivery) => message.body.includes(delivery.deliveryId)),
          )
          .map((message) => ({
            queue: name,
            visibleAt: new Date(message.visibleAt).toISOString(),
            receiveCount: message.receiveCount,
          })),
      ),
      deliveries,
    };
  }
  return trace;
}

async function tenant(api: TestStack, index: number, receiver: Receiver): Promise<Tenant> {
  const { orgId } = await createOrg(deps(), { name: `Ledger ${index}` });
  const { channelId } = await createChannel(deps(), {
    orgId,
    name: 'WA',
    type: 'MESSAGING_OFFICIAL',
    phoneNumber: `+49151000010${String(index).padStart(2, '0')}`,
    officialBusinessAccount: true,
    phoneNumberId: `1000000000010${String(index).padStart(2, '0')}`,
    accessToken: 'local-simulator-access-token',
  });
  const { clientId, clientSecret } = await createCredential(deps(), { orgId, roles: ['CRM_ADMIN'] });
  const token = (
    (await (await api.call('/token', { method: 'POST', json: { clientId, clientSecret } })).json()) as {
      accessToken: string;
    }
  ).accessToken;
  const subscription = await api.call(`/webhooks/${orgId}`, {
    method: 'POST',
    token,
    json: { url: `${receiver.url}/${orgId}` },
  });
  if (subscription.status !== 201) throw new Error(`webhook subscription: ${subscription.status}`);
  const { webhookId } = (await subscription.json()) as { webhookId: string };
  return { orgId, channelId, token, webhookId };
}

/** The fault schedule: Graph faults and delays, Meta's duplicates, a DynamoDB restart, a receiver outage and hang. */
async function scheduleNemesis(
  api: TestStack,
  receiver: Receiver,
  random: () => number,
  durationMs: number,
  count: (name: string) => void,
): Promise<void> {
  const simulator = api.stack.simulator!;
  const modes = ['http429', 'http500', 'code131208', 'timeout-after-commit', 'reset-after-commit'] as const;
  const events: { at: number; run: () => Promise<void> | void }[] = [];
  for (let index = 0; index < Math.max(4, durationMs / 1000); index++) {
    const mode = modes[Math.floor(random() * modes.length)]!;
    events.push({
      at: random() * durationMs,
      run: () => {
        simulator.addFault({ method: 'POST', path: '/groups$', mode, times: 1 + Math.floor(random() * 2) });
        count(`graph ${mode}`);
      },
    });
  }
  for (let index = 0; index < 3; index++) {
    const start = random() * durationMs;
    events.push({
      at: start,
      run: () => {
        simulator.options.latencyMs = 100 + Math.floor(random() * 400);
        count('graph delays');
      },
    });
    events.push({
      at: Math.min(durationMs, start + 1_500),
      run: () => {
        simulator.options.latencyMs = 0;
      },
    });
  }
  const duplicatesFrom = random() * durationMs * 0.5;
  events.push({
    at: duplicatesFrom,
    run: () => {
      simulator.setDuplicates(1);
      count('meta duplicate notifications');
    },
  });
  events.push({ at: duplicatesFrom + durationMs * 0.3, run: () => simulator.setDuplicates(0) });
  events.push({
    at: durationMs * (0.3 + random() * 0.4),
    run: async () => {
      count('dynamodb restarts');
      const downtimeMs = 300 + random() * 700;
      await api.stack.restartDynamo(Number(process.env.LEDGER_DYNAMO_DOWNTIME_MS ?? downtimeMs));
    },
  });
  const outageFrom = random() * durationMs * 0.7;
  events.push({
    at: outageFrom,
    run: () => {
      count('webhook receiver outages');
      receiver.failing = 503;
    },
  });
  events.push({
    at: outageFrom + 3_000,
    run: () => {
      receiver.failing = undefined;
    },
  });
  // The receiver hangs for 2 s: those attempts time out (10 s), which moves the subscriptions to the slow receivers'
  // pool (issue 35); their deliveries must still all arrive once it answers again.
  const hangFrom = random() * durationMs * 0.7;
  events.push({
    at: hangFrom,
    run: () => {
      count('webhook receiver hangs');
      receiver.hanging = true;
    },
  });
  events.push({
    at: hangFrom + 2_000,
    run: () => {
      receiver.hanging = false;
    },
  });

  const started = Date.now();
  for (const event of events.sort((a, b) => a.at - b.at)) {
    const wait = event.at - (Date.now() - started);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    await event.run();
  }
}
