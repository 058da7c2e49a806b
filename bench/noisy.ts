import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { createWpCrmClient, events, type FeedEvent } from '#clients/typescript/src/index';
import { QUEUES } from '#infra/aws/functions';
import type { LocalQueue } from '#infra/local/queue';
import type { WhatsAppSimulator } from '#infra/local/simulator/server';
import { startLocalStack } from '#infra/local/stack';
import { deps } from '#shared/config/deps';
import { resetConfig } from '#shared/config/env';
import { resetDeps } from '#shared/config/instances';
import { generateRecords } from '#shared/domain/crm/generate-records';
import { createChannel, createCredential, createOrg } from '#shared/domain/orgs/administer';
import { REPORT_TYPES } from '#shared/domain/reports/records';
import { BASE_PATH } from '#shared/routes/route';
import { percentile } from './stats.ts';

/**
 * P6, the noisy neighbour (CONTRACT §18): organisation B's work on the shared workers, first alone, then while
 * organisation A (and, with `noisyOrgs`, more like it) saturates every one of them on the same local stack — npm
 * start, or the synthesized template under npm run start:cdk (`target`) — in one run:
 * - webhook dispatch: A's subscriptions point at tarpit receivers that accept the connection and never answer;
 * - message sender: A floods its member-less group with messages, each refused by Meta and each a `message.status`
 *   for every tarpit subscription;
 * - report worker: A runs all nine report types over a large data set at once;
 * - group worker: A creates groups as fast as its limit allows.
 * B measures, from its API call to the event at its own (healthy) receiver: a message (`message.status` sent:
 * message sender + dispatcher), a group (`group.created`: group worker, Meta's confirmation, dispatcher) and a report
 * (`report.completed`: report worker + dispatcher); and a message's `message.status` in B's events feed, read as an
 * integrator who polls reads it (`GET /events/:orgId` following the iterator: message sender + feed writer, which
 * every one of A's events also passes through). Afterwards nothing of A's may be lost: its deliveries are pending
 * or retrying (or delivered), its reports complete, its groups are created, and its feed holds a status of every
 * message it sent, and nothing of B's.
 */
export interface NoisyOptions {
  /**
   * `local`: npm start (every function in this process; each consumer runs as many invocations at once as its event
   * source's MaximumConcurrency on AWS: the dispatcher's 50); `cdk`: npm run start:cdk (each function in processes of
   * its own, 4 environments per function, IAM enforced).
   */
  target: 'local' | 'cdk';
  /** Noisy organisations, each doing all of the below (A, A2, A3 …). */
  noisyOrgs: number;
  /** Each noisy organisation's subscriptions to receivers that never answer (the issue's 14). */
  tarpitSubscriptions: number;
  /** A's messages to its member-less group (the issue's 40). */
  floodMessages: number;
  /** Each noisy organisation runs all nine report types during the flood. */
  floodReports: boolean;
  /** A's group creations. */
  floodGroups: number;
  /** The scale of A's CRM data set (generateRecords): its nine reports read it all. */
  reportScale: number;
  /** B's samples of each measure in each phase. */
  samples: number;
  /**
   * B starts measuring this long after A's burst of requests was accepted: the phase measures B while A keeps the
   * workers saturated (tarpit attempts held, deliveries waiting, reports running), not the burst's own API calls.
   */
  settleMs: number;
  log?: (line: string) => void;
}

export const NOISY_FULL: NoisyOptions = {
  target: 'local',
  noisyOrgs: 1,
  tarpitSubscriptions: 14,
  floodMessages: 40,
  floodReports: true,
  floodGroups: 12,
  reportScale: 1_000,
  samples: 4,
  settleMs: 15_000,
};

/**
 * AWS's dispatcher pool (50, npm start runs the event sources at their AWS concurrency) against three noisy
 * organisations with 20 slow subscriptions each: 3 × 20 × 2 attempts = 120 in flight, more than the pool.
 */
export const NOISY_AWS_POOL: NoisyOptions = {
  ...NOISY_FULL,
  noisyOrgs: 3,
  tarpitSubscriptions: 20,
  // The dispatcher's pool is what this run is about (the other pools are the first two runs'): the organisations
  // flood it with their messages' statuses, without reports or groups. 12 messages keep each subscription's 2 attempt
  // slots taken for minutes (120 attempts wanted at once, more than the pool's 50); a larger flood only measures this
  // machine's one process, whose CPU B's every call shares here and would not on AWS.
  floodMessages: 12,
  floodReports: false,
  floodGroups: 0,
  reportScale: 20,
};

/** NOISY_FULL under npm run start:cdk. */
export const NOISY_CDK: NoisyOptions = { ...NOISY_FULL, target: 'cdk' };

export const NOISY_SMOKE: NoisyOptions = {
  target: 'local',
  noisyOrgs: 1,
  tarpitSubscriptions: 6,
  floodMessages: 12,
  floodReports: true,
  floodGroups: 6,
  reportScale: 100,
  samples: 2,
  settleMs: 15_000,
};

export type Measure = 'delivery' | 'group' | 'report' | 'feed';

export interface PhaseLatencies {
  /** Milliseconds per sample, in the order taken. */
  samples: Record<Measure, number[]>;
  p50: Record<Measure, number>;
  p99: Record<Measure, number>;
}

export interface NoisyReport {
  options: Omit<NoisyOptions, 'log'>;
  /** The noisy organisations' state when B started measuring. */
  saturation: { tarpitRequestsHeld: number; reportsRunning: number };
  /** The machine's 1-minute load average when B started measuring alone, and when it ended measuring. */
  loadAverage: [number, number];
  alone: PhaseLatencies;
  noisy: PhaseLatencies;
  /** noisy p99 / alone p99 per measure. */
  ratio: Record<Measure, number>;
  /** The noisy organisations' work after the run, summed: nothing lost. */
  a: {
    deliveries: Record<string, number>;
    reports: { requested: number; completed: number; seconds: number };
    /** Final group requests: created, or failed by Meta (a refusal is an outcome, not a loss). */
    groups: { requested: number; created: number; failed: number };
    messages: { requested: number; recorded: number };
    /** A's events feed after the run: its messages with a `message.status` there, and events of another organisation. */
    feed: { messagesWithStatus: number; foreign: number };
    /** What the fair queues saw of A (deprioritised at some point) per queue. */
    deprioritised: Record<string, boolean>;
    /** Messages in the dead-letter queues after the run. */
    deadLetters: number;
  };
  /**
   * The most of B's jobs seen waiting to be received (visible or delayed, not in flight) in each queue while the
   * others saturated, sampled every 50 ms: where B waited behind someone, if anywhere.
   */
  bWaiting: Record<string, number>;
}

const MEASURES: Measure[] = ['delivery', 'group', 'report', 'feed'];

/** The stack under test, as the benchmark drives it. */
interface BenchStack {
  apiUrl: string;
  simulator: WhatsAppSimulator;
  /** The queues by catalog name, to see what the fair queues made of the organisations. */
  queues: Map<string, LocalQueue>;
  close(): Promise<void>;
}

const STACK_ENV = {
  WPCRM_DATA_DIR: ':memory:',
  PORT: '0',
  WPCRM_DYNAMODB_PORT: '0',
  WPCRM_S3_PORT: '0',
  WPCRM_SIMULATOR_PORT: '0',
  WPCRM_SWEEP_INTERVAL_MS: '5000',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  GROUP_CREATE_RATE_LIMIT: '1000/60',
  REPORT_WINDOW_SECONDS: '1',
  // A noisy organisation's own healthy receiver beside its 20 tarpits.
  WEBHOOK_SUBSCRIPTION_LIMIT: '25',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
};

async function startStack(target: NoisyOptions['target']): Promise<BenchStack> {
  if (target === 'local') {
    const stack = await startLocalStack({ seed: false, env: { ...process.env, ...STACK_ENV } });
    return { apiUrl: stack.apiUrl, simulator: stack.simulator!, queues: stack.queues, close: () => stack.close() };
  }
  const { startCdkStack } = await import('#infra/cdk-local/stack');
  const stack = await startCdkStack({ seed: false, env: { ...process.env, ...STACK_ENV, WPCRM_IAM: 'enforce' } });
  // This process reads and writes the template's table directly (provisioning, A's data, the checks), as the CLI does.
  Object.assign(process.env, {
    TABLE_NAME: stack.info.tableName,
    DYNAMODB_ENDPOINT: stack.info.endpoints.dynamodb,
    AWS_ACCESS_KEY_ID: stack.info.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: stack.info.credentials.secretAccessKey,
  });
  resetConfig();
  resetDeps();
  // The template's queues by their catalog names (a physical name holds the queue's construct id).
  const byName = new Map<string, LocalQueue>();
  for (const def of QUEUES) {
    const id = def.name.replace(/(^|-)(\w)/g, (_, __, letter: string) => letter.toUpperCase());
    for (const [physical, queue] of stack.queues) {
      if (physical.includes(`${id}Queue`)) byName.set(def.name, queue);
      if (physical.includes(`${id}DeadLetterQueue`)) byName.set(`${def.name}-dlq`, queue);
    }
  }
  return {
    apiUrl: stack.apiUrl,
    simulator: stack.simulator!,
    queues: byName,
    close: async () => {
      const denied = Object.entries(stack.iamReport().functions).filter(([, entry]) => entry.denied.length > 0);
      await stack.close();
      if (denied.length > 0) throw new Error(`IAM denied calls under start:cdk: ${JSON.stringify(denied)}`);
    },
  };
}

export async function runNoisyNeighbour(options: NoisyOptions): Promise<NoisyReport> {
  const log = options.log ?? (() => undefined);
  const receiver = await EventReceiver.start();
  const tarpit = await Tarpit.start();
  const stack = await startStack(options.target);
  const deprioritised: Record<string, boolean> = {};
  const bWaiting: Record<string, number> = {};
  let noisyIds = new Set<string>();
  let bId: string | undefined;
  let measuringB = false;
  let ticks = 0;
  const watch = setInterval(() => {
    ticks += 1;
    for (const [name, queue] of stack.queues) {
      const tenants = queue.tenants();
      if (tenants.some((tenant) => noisyIds.has(tenant.tenant) && tenant.noisy)) deprioritised[name] = true;
      // B's jobs waiting to be received while the others saturate (in flight is being worked on, not waiting).
      const b = measuringB ? tenants.find((tenant) => tenant.tenant === bId) : undefined;
      if (b) bWaiting[name] = Math.max(bWaiting[name] ?? 0, b.backlog);
      if (process.env.NOISY_DEBUG && ticks % 20 === 0 && queue.size > 0) {
        log(`${name}: ${JSON.stringify(tenants.filter((tenant) => !tenant.tenant.startsWith('message:')))}`);
      }
    }
  }, 50);
  try {
    stack.simulator.options.webhookDelayMs = 0;
    const noisyOrgs: Org[] = [];
    for (let index = 0; index < options.noisyOrgs; index++) {
      noisyOrgs.push(await provision(stack, index === 0 ? 'A' : `A${index + 1}`, 10 + index));
    }
    noisyIds = new Set(noisyOrgs.map((org) => org.orgId));
    const b = await provision(stack, 'B', 2);
    bId = b.orgId;
    log(`provisioned ${noisyOrgs.length} noisy organisation(s) and B (${options.target})`);
    for (const [index, org] of noisyOrgs.entries()) await loadRecords(org.orgId, options.reportScale, 7 + index);
    await loadRecords(b.orgId, 20, 8);
    log(`loaded the noisy organisations' CRM data (scale ${options.reportScale})`);

    // B: a subscription to its healthy receiver and a group with a member, so its messages are delivered.
    await api(stack, 'POST', `/webhooks/${b.orgId}`, b.token, { url: `${receiver.url}/${b.orgId}` });
    b.chatId = await createGroup(stack, b, receiver, `B's group`);
    const bGroup = (await deps().chats.getChat(b.orgId, b.chatId))!.externalChatId!;
    stack.simulator.join(bGroup, '4917000000002');
    await stack.simulator.flushWebhooks();
    // Each noisy organisation: a group without members (Meta refuses its messages), made before the tarpits exist.
    for (const org of noisyOrgs) {
      await api(stack, 'POST', `/webhooks/${org.orgId}`, org.token, { url: `${receiver.url}/${org.orgId}` });
      org.chatId = await createGroup(stack, org, receiver, `${org.name}'s group`);
    }

    const sample = measureB(stack, b, receiver);
    // One sample of each measure first, not counted: it starts the functions B's path uses (start:cdk cold-starts a
    // process for each), which neither phase should measure.
    await phase(sample, 1, 0);
    const loadBefore = round(loadavg()[0]!);
    const alone = await phase(sample, options.samples, 0);
    log(`B alone: ${JSON.stringify(alone.p99)}`);

    // The noisy organisations saturate every shared worker.
    for (const org of noisyOrgs) {
      for (let index = 0; index < options.tarpitSubscriptions; index++) {
        await api(stack, 'POST', `/webhooks/${org.orgId}`, org.token, { url: `${tarpit.url}/${org.name}/${index}` });
      }
    }
    const aStarted = performance.now();
    const work = await Promise.all(noisyOrgs.map((org) => flood(stack, org, options)));
    log(
      `${noisyOrgs.length} organisation(s) saturate: ${options.tarpitSubscriptions} tarpits, ` +
        `${options.floodMessages} messages, 9 reports, ${options.floodGroups} groups each`,
    );
    await new Promise((resolve) => setTimeout(resolve, options.settleMs));
    const saturation = { tarpitRequestsHeld: tarpit.held.length, reportsRunning: 0 };
    for (const [index, org] of noisyOrgs.entries()) {
      for (const reportId of work[index]!.reportIds) {
        const { status } = await api<{ status: string }>(stack, 'GET', `/reports/${org.orgId}/${reportId}`, org.token);
        if (status !== 'COMPLETED') saturation.reportsRunning += 1;
      }
    }
    log(`B starts measuring: ${JSON.stringify(saturation)}`);
    measuringB = true;
    const noisy = await phase(sample, options.samples, 1);
    measuringB = false;
    const loadAverage: [number, number] = [loadBefore, round(loadavg()[0]!)];
    log(`B while the noisy organisations saturate: ${JSON.stringify(noisy.p99)}`);

    // Nothing of theirs is lost.
    const outcomes: Awaited<ReturnType<typeof nothingLost>>[] = [];
    for (const [index, org] of noisyOrgs.entries()) outcomes.push(await nothingLost(stack, org, work[index]!));
    const reportSeconds = round((performance.now() - aStarted) / 1000);
    const sum = (pick: (outcome: (typeof outcomes)[number]) => number) =>
      outcomes.reduce((total, outcome) => total + pick(outcome), 0);
    const deliveries: Record<string, number> = {};
    for (const outcome of outcomes) {
      for (const [status, count] of Object.entries(outcome.deliveries))
        deliveries[status] = (deliveries[status] ?? 0) + count;
    }
    return {
      options: {
        target: options.target,
        noisyOrgs: options.noisyOrgs,
        tarpitSubscriptions: options.tarpitSubscriptions,
        floodMessages: options.floodMessages,
        floodReports: options.floodReports,
        floodGroups: options.floodGroups,
        reportScale: options.reportScale,
        samples: options.samples,
        settleMs: options.settleMs,
      },
      saturation,
      loadAverage,
      alone,
      noisy,
      ratio: Object.fromEntries(
        MEASURES.map((measure) => [measure, round(noisy.p99[measure] / Math.max(1, alone.p99[measure]))]),
      ) as Record<Measure, number>,
      a: {
        deliveries,
        reports: {
          requested: sum((o) => o.reports.requested),
          completed: sum((o) => o.reports.completed),
          seconds: reportSeconds,
        },
        groups: {
          requested: sum((o) => o.groups.requested),
          created: sum((o) => o.groups.created),
          failed: sum((o) => o.groups.failed),
        },
        messages: { requested: sum((o) => o.messages.requested), recorded: sum((o) => o.messages.recorded) },
        feed: { messagesWithStatus: sum((o) => o.feed.messagesWithStatus), foreign: sum((o) => o.feed.foreign) },
        deprioritised,
        deadLetters: [...stack.queues]
          .filter(([name]) => name.endsWith('-dlq'))
          .reduce((sum, [, queue]) => sum + queue.size, 0),
      },
      bWaiting,
    };
  } finally {
    clearInterval(watch);
    await stack.close();
    await tarpit.close();
    await receiver.close();
  }
}

interface Flood {
  reportIds: string[];
  groupRequests: string[];
  messageIds: string[];
}

/** A noisy organisation's burst: all nine reports, its group creations and its messages, at once. */
async function flood(stack: BenchStack, org: Org, options: NoisyOptions): Promise<Flood> {
  const work: Flood = { reportIds: [], groupRequests: [], messageIds: [] };
  await Promise.all([
    ...(options.floodReports ? REPORT_TYPES : []).map(async (reportType) => {
      const { reportId } = await api<{ reportId: string }>(stack, 'POST', `/reports/${org.orgId}`, org.token, {
        reportType,
      });
      work.reportIds.push(reportId);
    }),
    ...Array.from({ length: options.floodGroups }, async (_, index) => {
      const { requestId } = await api<{ requestId: string }>(stack, 'POST', `/groups/${org.orgId}`, org.token, {
        channelId: org.channelId,
        subject: `${org.name} flood ${index}`,
      });
      work.groupRequests.push(requestId);
    }),
    ...Array.from({ length: options.floodMessages }, async (_, index) => {
      const { messageId } = await api<{ messageId: string }>(stack, 'POST', '/messaging/send-message', org.token, {
        chatId: org.chatId,
        text: `${org.name} flood ${index}`,
      });
      work.messageIds.push(messageId);
    }),
  ]);
  return work;
}

/** A noisy organisation's work after the run: its reports complete, its groups final, its messages recorded. */
async function nothingLost(stack: BenchStack, org: Org, work: Flood) {
  const reports = await waitFor(
    async () => {
      const states = await Promise.all(
        work.reportIds.map((reportId) =>
          api<{ status: string }>(stack, 'GET', `/reports/${org.orgId}/${reportId}`, org.token),
        ),
      );
      const completed = states.filter((state) => state.status === 'COMPLETED').length;
      return completed === work.reportIds.length ? completed : undefined;
    },
    900_000,
    `${org.name}'s ${work.reportIds.length} reports`,
  );
  let groupsFailed = 0;
  const created = await waitFor(
    async () => {
      const states = await Promise.all(
        work.groupRequests.map((requestId) =>
          api<{ status: string }>(stack, 'GET', `/groups/${org.orgId}/creation-status/${requestId}`, org.token),
        ),
      );
      const final = states.filter((state) => state.status === 'created' || state.status === 'failed');
      groupsFailed = final.length - final.filter((state) => state.status === 'created').length;
      return final.length === work.groupRequests.length ? final.length - groupsFailed : undefined;
    },
    300_000,
    `${org.name}'s ${work.groupRequests.length} groups`,
  );
  const recorded = await waitFor(
    async () => {
      const messages = await deps().chats.listMessages(org.orgId, org.chatId!, { limit: 1000 });
      const final = messages.items.filter((message) => message.status !== 'queued').length;
      return final >= work.messageIds.length ? final : undefined;
    },
    300_000,
    `${org.name}'s ${work.messageIds.length} messages`,
  );
  const sent = new Set(work.messageIds);
  const feed = await waitFor(
    async () => {
      const bodies = (await wholeFeed(stack, org)).map((event) => event.data);
      const withStatus = new Set(
        bodies.flatMap((body) =>
          body.type === 'message.status' && sent.has(body.message_id) ? [body.message_id] : [],
        ),
      );
      const foreign = bodies.filter((body) => body.organisation_id !== org.orgId).length;
      return withStatus.size === sent.size ? { messagesWithStatus: withStatus.size, foreign } : undefined;
    },
    300_000,
    `a status of ${org.name}'s ${work.messageIds.length} messages in its events feed`,
  );
  return {
    deliveries: await deliveryStates(org.orgId),
    reports: { requested: work.reportIds.length, completed: reports },
    groups: { requested: work.groupRequests.length, created, failed: groupsFailed },
    messages: { requested: work.messageIds.length, recorded },
    feed,
  };
}

/** What one run of P6 is called in bench/RESULTS.md. */
export function noisyRunTitle(options: Pick<NoisyOptions, 'target' | 'noisyOrgs' | 'tarpitSubscriptions'>): string {
  const where =
    options.target === 'cdk'
      ? '`npm run start:cdk` (each function in its own processes, 4 environments per function, IAM enforced)'
      : options.noisyOrgs > 1
        ? "`npm start` as a simulation of AWS's pools (each event source at its AWS MaximumConcurrency: the dispatcher's 50)"
        : '`npm start` (every function in one process, each event source at its AWS MaximumConcurrency)';
  const who =
    options.noisyOrgs > 1
      ? `${options.noisyOrgs} noisy organisations with ${options.tarpitSubscriptions} slow subscriptions each`
      : `organisation A with ${options.tarpitSubscriptions} slow subscriptions`;
  return `${where}: ${who}`;
}

/** P6 as a section of bench/RESULTS.md: one table per run. */
export function renderNoisy(reports: NoisyReport[], baseline: string): string {
  const first = reports[0]!.options;
  return [
    '## P6 — noisy neighbour: organisation B while other organisations saturate every shared worker',
    '',
    "Goal (CONTRACT §18, issue 35): B's p99 while the others saturate ≤ 1.5 × B's p99 alone, on npm start, on " +
      "npm run start:cdk, and on npm start with AWS's pool sizes against three noisy organisations (issue 16's goal " +
      `was 3 ×). \`npm run bench -- --noisy\` (bench/noisy.ts), one stack per run: ${first.samples} samples of each ` +
      "measure per phase, B's API call to the event at B's own receiver. Each noisy organisation, during the second " +
      'phase: its subscriptions to tarpit receivers (accept, never answer), messages to its member-less group (each ' +
      'refused by Meta, each a `message.status` for every tarpit), and in the first two runs all 9 report types over ' +
      `its CRM data and group creations. B starts measuring ${first.settleMs / 1000} s after the burst was accepted.`,
    '',
    ...reports.flatMap(renderRun),
    `Baseline: ${baseline}`,
    '',
    'What keeps B prompt (issue 35): no organisation holds more than a quarter of a shared pool (the dispatcher, the ' +
      "slow receivers' dispatcher, the group worker, the message sender, the report worker), counted across " +
      "containers with leases in the table; a job over its organisation's share goes back to its queue, so it waits " +
      "for its own organisation's invocations, never another's. A subscription whose attempt took 3 s or more has its " +
      "attempts in the slow receivers' own pool until one is quicker, so a tarpit holds the healthy receivers' pool " +
      'for one attempt at most. Every job carries its organisation as MessageGroupId (SQS fair queues; the local ' +
      'queue models their detection), the events feed included. Locally the functions share two cores (npm start: ' +
      'one process), so the noisy organisations still cost B CPU time that separate Lambda instances would not.',
    '',
  ].join('\n');
}

function renderRun(report: NoisyReport): string[] {
  const { options, alone, noisy, ratio, a } = report;
  const row = (measure: Measure, name: string) =>
    `| ${name} | ${alone.p50[measure]} | ${alone.p99[measure]} | ${noisy.p50[measure]} | ${noisy.p99[measure]} | ${ratio[measure]} × |`;
  const met = MEASURES.every((measure) => ratio[measure] <= 1.5);
  return [
    `### ${noisyRunTitle(options)}`,
    '',
    `Each noisy organisation: ${options.tarpitSubscriptions} tarpit subscriptions, ${options.floodMessages} messages` +
      (options.floodReports ? `, 9 reports over CRM data of scale ${options.reportScale}` : '') +
      (options.floodGroups ? `, ${options.floodGroups} group creations` : '') +
      `. While B measured, they held ${report.saturation.tarpitRequestsHeld} requests at their tarpits ` +
      `and ${report.saturation.reportsRunning} of their reports still ran; ` +
      `the machine's load average was ${report.loadAverage[0]} when B began and ${report.loadAverage[1]} when it ended. ` +
      `Goal ${met ? 'met' : '**not met**'} in this run (worst ratio ${Math.max(...MEASURES.map((measure) => ratio[measure]))} ×).`,
    '',
    '| B measures (ms) | alone p50 | alone p99 | saturated p50 | saturated p99 | p99 ratio |',
    '|---|---|---|---|---|---|',
    row('delivery', 'message → `message.status` (message sender + dispatcher)'),
    row('group', 'group → `group.created` (group worker + dispatcher)'),
    row('report', 'report → `report.completed` (report worker + dispatcher)'),
    row('feed', "message → its `message.status` in B's events feed, polled (message sender + feed writer)"),
    '',
    `Nothing of theirs is lost: deliveries ${JSON.stringify(a.deliveries)}; ` +
      (a.reports.requested
        ? `reports ${a.reports.completed}/${a.reports.requested} completed ${a.reports.seconds} s after the burst; `
        : '') +
      (a.groups.requested
        ? `groups ${a.groups.created}/${a.groups.requested} created (${a.groups.failed} refused by Meta); `
        : '') +
      `messages ${a.messages.recorded}/` +
      `${a.messages.requested} recorded; their events feeds hold a status of ${a.feed.messagesWithStatus}/` +
      `${a.messages.requested} of their messages and ${a.feed.foreign} events of another organisation` +
      `; ${a.deadLetters} messages in the dead-letter queues. The fair queues deprioritised them on: ${
        Object.keys(a.deprioritised).length ? Object.keys(a.deprioritised).join(', ') : 'none'
      }. The most of B's jobs waiting to be received in any queue while they saturated: ${Math.max(
        0,
        ...Object.values(report.bWaiting),
      )}${
        Object.values(report.bWaiting).some((count) => count > 0)
          ? ` (${Object.entries(report.bWaiting)
              .filter(([, count]) => count > 0)
              .map(([queue, count]) => `${queue} ${count}`)
              .join(', ')})`
          : ''
      }.`,
    '',
  ];
}

interface Org {
  name: string;
  orgId: string;
  token: string;
  channelId: string;
  chatId?: string;
}

async function provision(stack: BenchStack, name: string, index: number): Promise<Org> {
  const d = deps();
  const { orgId } = await createOrg(d, { name: `Noisy ${name}` });
  const credential = await createCredential(d, { orgId, roles: ['CRM_ADMIN'] });
  const number = String(index).padStart(6, '0');
  const { channelId } = await createChannel(d, {
    orgId,
    name: `WhatsApp ${name}`,
    type: 'MESSAGING_OFFICIAL',
    phoneNumber: `+4916${number}0001`,
    officialBusinessAccount: true,
    phoneNumberId: `3000${number}00001`,
    accessToken: 'local-simulator-access-token',
  });
  const { accessToken } = await api<{ accessToken: string }>(stack, 'POST', '/token', undefined, {
    clientId: credential.clientId,
    clientSecret: credential.clientSecret,
  });
  return { name, orgId, token: accessToken, channelId };
}

async function loadRecords(orgId: string, scale: number, seed: number) {
  const records = [...generateRecords({ scale, seed })];
  for (let start = 0; start < records.length; start += 2_000) {
    const chunk = records.slice(start, start + 2_000);
    const batches = [];
    for (let at = 0; at < chunk.length; at += 500)
      batches.push(deps().crm.putRecords(orgId, chunk.slice(at, at + 500)));
    await Promise.all(batches);
  }
}

async function createGroup(stack: BenchStack, org: Org, receiver: EventReceiver, subject: string) {
  const { requestId } = await api<{ requestId: string }>(stack, 'POST', `/groups/${org.orgId}`, org.token, {
    channelId: org.channelId,
    subject,
  });
  const event = await receiver.arrival(`${org.orgId} group.created ${requestId}`, 60_000);
  return String(event.body.chat_id);
}

/** One sample of each of B's measures, in milliseconds from the API call to the event at B's receiver. */
function measureB(stack: BenchStack, b: Org, receiver: EventReceiver) {
  let reportTurn = 0;
  // B's feed reader, as an integrator runs one (the client's walk): it keeps its iterator from one sample to the next.
  const reader = feedClient(stack, b);
  let iterator: string | undefined;
  return {
    delivery: async () => {
      const started = performance.now();
      const { messageId } = await api<{ messageId: string }>(stack, 'POST', '/messaging/send-message', b.token, {
        chatId: b.chatId,
        text: 'Hello from B',
      });
      return (await receiver.arrival(`${b.orgId} message.status ${messageId} sent`, 300_000)).at - started;
    },
    group: async () => {
      const started = performance.now();
      const { requestId } = await api<{ requestId: string }>(stack, 'POST', `/groups/${b.orgId}`, b.token, {
        channelId: b.channelId,
        subject: 'B sample',
      });
      return (await receiver.arrival(`${b.orgId} group.created ${requestId}`, 300_000)).at - started;
    },
    report: async () => {
      // Types in turn: B's previous report of a type must have left the (1 s) window.
      const reportType = REPORT_TYPES[reportTurn++ % REPORT_TYPES.length]!;
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const started = performance.now();
      const { reportId } = await api<{ reportId: string }>(stack, 'POST', `/reports/${b.orgId}`, b.token, {
        reportType,
      });
      return (await receiver.arrival(`${b.orgId} report.completed ${reportId}`, 600_000)).at - started;
    },
    feed: async () => {
      const started = performance.now();
      const { messageId } = await api<{ messageId: string }>(stack, 'POST', '/messaging/send-message', b.token, {
        chatId: b.chatId,
        text: 'Hello from B, read from the feed',
      });
      const deadline = Date.now() + 300_000;
      for (;;) {
        const feed = events(reader, b.orgId, { types: ['message.status'], iterator, limit: 100 });
        for await (const { data } of feed) {
          if (data.type === 'message.status' && data.message_id === messageId && data.status === 'sent') {
            return performance.now() - started;
          }
        }
        iterator = feed.iterator;
        if (Date.now() > deadline) throw new Error(`B's message ${messageId} never reached its events feed`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  } satisfies Record<Measure, () => Promise<number>>;
}

/** The generated client (@wp-crm/client) of the local stack, with the organisation's token. */
function feedClient(stack: BenchStack, org: Org) {
  return createWpCrmClient({ baseUrl: stack.apiUrl.slice(0, -BASE_PATH.length), token: org.token });
}

/** Every event of the organisation's feed, oldest first. */
async function wholeFeed(stack: BenchStack, org: Org): Promise<FeedEvent[]> {
  const all: FeedEvent[] = [];
  for await (const event of events(feedClient(stack, org), org.orgId, { limit: 100 })) all.push(event);
  return all;
}

async function phase(
  sample: Record<Measure, () => Promise<number>>,
  samples: number,
  _phase: number,
): Promise<PhaseLatencies> {
  const taken: Record<Measure, number[]> = { delivery: [], group: [], report: [], feed: [] };
  for (let index = 0; index < samples; index++) {
    for (const measure of MEASURES) taken[measure].push(round(await sample[measure]()));
  }
  const of = (p: number) =>
    Object.fromEntries(MEASURES.map((measure) => [measure, round(percentile(taken[measure], p))])) as Record<
      Measure,
      number
    >;
  return { samples: taken, p50: of(50), p99: of(99) };
}

async function deliveryStates(orgId: string): Promise<Record<string, number>> {
  const states: Record<string, number> = {};
  for (const subscription of await deps().webhooks.allSubscriptions(orgId)) {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await deps().webhooks.listDeliveries(orgId, subscription.webhookId, { limit: 100, startKey });
      for (const delivery of page.items) states[delivery.status] = (states[delivery.status] ?? 0) + 1;
      startKey = page.nextKey;
    } while (startKey);
  }
  return states;
}

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not done after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function api<T = unknown>(
  stack: BenchStack,
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
): Promise<T> {
  // An overloaded machine can make the embedded DynamoDB time out (500): the client retries, as integrators do.
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(`${stack.apiUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.ok) return (await response.json()) as T;
    const text = await response.text();
    if (response.status < 500 || attempt === 3) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

const round = (value: number) => Math.round(value * 10) / 10;

interface Arrival {
  at: number;
  body: Record<string, unknown>;
}

/** B's (and A's own-group) receiver: answers at once and records when each event arrived. */
class EventReceiver {
  #arrivals = new Map<string, Arrival>();
  #waiting = new Map<string, (arrival: Arrival) => void>();
  #counts = new Map<string, number>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<EventReceiver> {
    let receiver: EventReceiver | undefined;
    const server = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      request.on('end', () => {
        response.end('ok');
        receiver!.#record(request.url!.slice(1), JSON.parse(text) as Record<string, unknown>);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new EventReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return receiver;
  }

  #record(orgId: string, body: Record<string, unknown>) {
    const arrival = { at: performance.now(), body };
    const countKey = `${orgId} ${String(body.type)}`;
    this.#counts.set(countKey, (this.#counts.get(countKey) ?? 0) + 1);
    const id =
      body.type === 'group.created'
        ? body.request_id
        : body.type === 'report.completed'
          ? body.report_id
          : body.type === 'message.status'
            ? `${String(body.message_id)} ${String(body.status)}`
            : undefined;
    if (id === undefined) return;
    const key = `${orgId} ${String(body.type)} ${String(id)}`;
    if (this.#arrivals.has(key)) return;
    this.#arrivals.set(key, arrival);
    this.#waiting.get(key)?.(arrival);
    this.#waiting.delete(key);
  }

  count(orgId: string, type: string): number {
    return this.#counts.get(`${orgId} ${type}`) ?? 0;
  }

  arrival(key: string, timeoutMs: number): Promise<Arrival> {
    const known = this.#arrivals.get(key);
    if (known) return Promise.resolve(known);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${key} did not arrive in ${timeoutMs / 1000} s`)), timeoutMs);
      this.#waiting.set(key, (arrival) => {
        clearTimeout(timer);
        resolve(arrival);
      });
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A receiver that accepts every connection and request and never answers (until closed). */
class Tarpit {
  readonly held: ServerResponse[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<Tarpit> {
    let tarpit: Tarpit | undefined;
    const server = createServer((_request: IncomingMessage, response: ServerResponse) => {
      tarpit!.held.push(response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    tarpit = new Tarpit(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return tarpit;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
