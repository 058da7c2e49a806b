import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWpCrmClient, events, type FeedEvent } from '#clients/typescript/src/index';
import { type LocalStack, startLocalStack } from '#infra/local/stack';
import { deps } from '#shared/config/deps';
import { generateRecords } from '#shared/domain/crm/generate-records';
import { createChannel, createCredential, createOrg } from '#shared/domain/orgs/administer';
import { REPORT_TYPES } from '#shared/domain/reports/records';
import { BASE_PATH } from '#shared/routes/route';
import { percentile } from './stats.ts';

/**
 * P6, the noisy neighbour (CONTRACT §18): organisation B's work on the shared workers, first alone, then while
 * organisation A saturates every one of them on the same local stack, in one run:
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
  /** A's subscriptions to receivers that never answer (the 14). */
  tarpitSubscriptions: number;
  /** A's messages to its member-less group (the 40). */
  floodMessages: number;
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
  tarpitSubscriptions: 14,
  floodMessages: 40,
  floodGroups: 12,
  reportScale: 1_000,
  samples: 4,
  settleMs: 15_000,
};

export const NOISY_SMOKE: NoisyOptions = {
  tarpitSubscriptions: 6,
  floodMessages: 12,
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
  /** A's state when B started measuring. */
  saturation: { tarpitRequestsHeld: number; reportsRunning: number };
  alone: PhaseLatencies;
  noisy: PhaseLatencies;
  /** noisy p99 / alone p99 per measure. */
  ratio: Record<Measure, number>;
  /** A's work after the run: nothing lost. */
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
  };
}

const MEASURES: Measure[] = ['delivery', 'group', 'report', 'feed'];

export async function runNoisyNeighbour(options: NoisyOptions): Promise<NoisyReport> {
  const log = options.log ?? (() => undefined);
  const receiver = await EventReceiver.start();
  const tarpit = await Tarpit.start();
  const stack = await startLocalStack({
    seed: false,
    env: {
      ...process.env,
      WPCRM_DATA_DIR: ':memory:',
      PORT: '0',
      WPCRM_DYNAMODB_PORT: '0',
      WPCRM_S3_PORT: '0',
      WPCRM_SIMULATOR_PORT: '0',
      WPCRM_SWEEP_INTERVAL_MS: '5000',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      GROUP_CREATE_RATE_LIMIT: '1000/60',
      REPORT_WINDOW_SECONDS: '1',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
    },
  });
  const deprioritised: Record<string, boolean> = {};
  let ticks = 0;
  const watch = setInterval(() => {
    ticks += 1;
    for (const [name, queue] of stack.queues) {
      const tenants = queue.tenants();
      if (tenants.some((tenant) => tenant.tenant === a?.orgId && tenant.noisy)) deprioritised[name] = true;
      if (process.env.NOISY_DEBUG && ticks % 20 === 0 && queue.size > 0) {
        log(`${name}: ${JSON.stringify(tenants.filter((tenant) => !tenant.tenant.startsWith('message:')))}`);
      }
    }
  }, 50);
  let a: Org = undefined as unknown as Org;
  try {
    stack.simulator!.options.webhookDelayMs = 0;
    a = await provision(stack, 'A', 1);
    const b = await provision(stack, 'B', 2);
    log('provisioned A and B');
    await loadRecords(a.orgId, options.reportScale, 7);
    await loadRecords(b.orgId, 20, 8);
    log(`loaded A's CRM data (scale ${options.reportScale})`);

    // B: a subscription to its healthy receiver and a group with a member, so its messages are delivered.
    await api(stack, 'POST', `/webhooks/${b.orgId}`, b.token, { url: `${receiver.url}/${b.orgId}` });
    b.chatId = await createGroup(stack, b, receiver, `B's group`);
    const bGroup = (await deps().chats.getChat(b.orgId, b.chatId))!.externalChatId!;
    stack.simulator!.join(bGroup, '4917000000002');
    await stack.simulator!.flushWebhooks();
    // A: a group without members (Meta refuses its messages), made before the tarpits exist.
    await api(stack, 'POST', `/webhooks/${a.orgId}`, a.token, { url: `${receiver.url}/${a.orgId}` });
    a.chatId = await createGroup(stack, a, receiver, `A's group`);

    const sample = measureB(stack, b, receiver);
    const alone = await phase(sample, options.samples, 0);
    log(`B alone: ${JSON.stringify(alone.p99)}`);

    // A saturates every shared worker.
    for (let index = 0; index < options.tarpitSubscriptions; index++) {
      await api(stack, 'POST', `/webhooks/${a.orgId}`, a.token, { url: `${tarpit.url}/a/${index}` });
    }
    const aStarted = performance.now();
    const reportIds: string[] = [];
    const groupRequests: string[] = [];
    const messageIds: string[] = [];
    await Promise.all([
      ...REPORT_TYPES.map(async (reportType) => {
        const { reportId } = await api<{ reportId: string }>(stack, 'POST', `/reports/${a.orgId}`, a.token, {
          reportType,
        });
        reportIds.push(reportId);
      }),
      ...Array.from({ length: options.floodGroups }, async (_, index) => {
        const { requestId } = await api<{ requestId: string }>(stack, 'POST', `/groups/${a.orgId}`, a.token, {
          channelId: a.channelId,
          subject: `A flood ${index}`,
        });
        groupRequests.push(requestId);
      }),
      ...Array.from({ length: options.floodMessages }, async (_, index) => {
        const { messageId } = await api<{ messageId: string }>(stack, 'POST', '/messaging/send-message', a.token, {
          chatId: a.chatId,
          text: `A flood ${index}`,
        });
        messageIds.push(messageId);
      }),
    ]);
    log(`A saturates: ${options.tarpitSubscriptions} tarpits, ${messageIds.length} messages, 9 reports, groups`);
    await new Promise((resolve) => setTimeout(resolve, options.settleMs));
    const saturation = { tarpitRequestsHeld: tarpit.held.length, reportsRunning: 0 };
    for (const reportId of reportIds) {
      const { status } = await api<{ status: string }>(stack, 'GET', `/reports/${a.orgId}/${reportId}`, a.token);
      if (status !== 'COMPLETED') saturation.reportsRunning += 1;
    }
    log(`B starts measuring: ${JSON.stringify(saturation)}`);
    const noisy = await phase(sample, options.samples, 1);
    log(`B while A saturates: ${JSON.stringify(noisy.p99)}`);

    // Nothing of A's is lost.
    const reports = await waitFor(
      async () => {
        const states = await Promise.all(
          reportIds.map((reportId) =>
            api<{ status: string }>(stack, 'GET', `/reports/${a.orgId}/${reportId}`, a.token),
          ),
        );
        const completed = states.filter((state) => state.status === 'COMPLETED').length;
        return completed === reportIds.length ? completed : undefined;
      },
      600_000,
      `A's ${reportIds.length} reports`,
    );
    const reportSeconds = round((performance.now() - aStarted) / 1000);
    let groupsFailed = 0;
    const created = await waitFor(
      async () => {
        const states = await Promise.all(
          groupRequests.map((requestId) =>
            api<{ status: string }>(stack, 'GET', `/groups/${a.orgId}/creation-status/${requestId}`, a.token),
          ),
        );
        const final = states.filter((state) => state.status === 'created' || state.status === 'failed');
        groupsFailed = final.length - final.filter((state) => state.status === 'created').length;
        return final.length === groupRequests.length ? final.length - groupsFailed : undefined;
      },
      300_000,
      `A's ${groupRequests.length} groups`,
    );
    const recorded = await waitFor(
      async () => {
        const messages = await deps().chats.listMessages(a.orgId, a.chatId!, { limit: 1000 });
        const final = messages.items.filter((message) => message.status !== 'queued').length;
        return final >= messageIds.length ? final : undefined;
      },
      120_000,
      `A's ${messageIds.length} messages`,
    );
    const sent = new Set(messageIds);
    const feed = await waitFor(
      async () => {
        const bodies = (await wholeFeed(stack, a)).map((event) => event.data);
        const withStatus = new Set(
          bodies.flatMap((body) =>
            body.type === 'message.status' && sent.has(body.message_id) ? [body.message_id] : [],
          ),
        );
        const foreign = bodies.filter((body) => body.organisation_id !== a.orgId).length;
        return withStatus.size === sent.size ? { messagesWithStatus: withStatus.size, foreign } : undefined;
      },
      120_000,
      `a status of A's ${messageIds.length} messages in its events feed`,
    );
    const deliveries = await deliveryStates(a.orgId);
    return {
      options: {
        tarpitSubscriptions: options.tarpitSubscriptions,
        floodMessages: options.floodMessages,
        floodGroups: options.floodGroups,
        reportScale: options.reportScale,
        samples: options.samples,
        settleMs: options.settleMs,
      },
      saturation,
      alone,
      noisy,
      ratio: Object.fromEntries(
        MEASURES.map((measure) => [measure, round(noisy.p99[measure] / Math.max(1, alone.p99[measure]))]),
      ) as Record<Measure, number>,
      a: {
        deliveries,
        reports: { requested: reportIds.length, completed: reports, seconds: reportSeconds },
        groups: { requested: groupRequests.length, created, failed: groupsFailed },
        messages: { requested: messageIds.length, recorded },
        feed,
        deprioritised,
      },
    };
  } finally {
    clearInterval(watch);
    await stack.close();
    await tarpit.close();
    await receiver.close();
  }
}

/** P6 as a section of bench/RESULTS.md. */
export function renderNoisy(report: NoisyReport, baseline: string): string {
  const { options, alone, noisy, ratio, a } = report;
  const row = (measure: Measure, name: string) =>
    `| ${name} | ${alone.p50[measure]} | ${alone.p99[measure]} | ${noisy.p50[measure]} | ${noisy.p99[measure]} | ${ratio[measure]} × |`;
  return [
    '## P6 — noisy neighbour: organisation B while organisation A saturates every shared worker',
    '',
    `Goal (CONTRACT §18, issue 16): B's p99 while A saturates ≤ 3 × B's p99 alone. One run of \`npm run bench\` ` +
      `(bench/noisy.ts) on one local stack: ${options.samples} samples of each measure per phase, B's API call to ` +
      "the event at B's own receiver. A, during the second phase: " +
      `${options.tarpitSubscriptions} subscriptions to tarpit receivers (accept, never answer), ` +
      `${options.floodMessages} messages to its member-less group (each refused by Meta, each a \`message.status\` ` +
      `for every tarpit), all 9 report types over a data set of scale ${options.reportScale}, ` +
      `${options.floodGroups} group creations. B starts measuring ${options.settleMs / 1000} s after A's burst was ` +
      `accepted, while A holds ${report.saturation.tarpitRequestsHeld} requests at its tarpits and ` +
      `${report.saturation.reportsRunning} of its reports still run.`,
    '',
    '| B measures (ms) | alone p50 | alone p99 | A saturating p50 | A saturating p99 | p99 ratio |',
    '|---|---|---|---|---|---|',
    row('delivery', 'message → `message.status` (message sender + dispatcher)'),
    row('group', 'group → `group.created` (group worker + dispatcher)'),
    row('report', 'report → `report.completed` (report worker + dispatcher)'),
    row('feed', "message → its `message.status` in B's events feed, polled (message sender + feed writer)"),
    '',
    `Baseline: ${baseline}`,
    '',
    `Nothing of A's is lost: deliveries ${JSON.stringify(a.deliveries)}; reports ${a.reports.completed}/` +
      `${a.reports.requested} completed ${a.reports.seconds} s after A started; groups ${a.groups.created}/` +
      `${a.groups.requested} created (${a.groups.failed} refused by Meta); messages ${a.messages.recorded}/${a.messages.requested} recorded; ` +
      `A's events feed holds a status of ${a.feed.messagesWithStatus}/${a.messages.requested} of its messages and ${a.feed.foreign} events of another organisation.`,
    `The local fair queues deprioritised A on: ${
      Object.keys(a.deprioritised).length ? Object.keys(a.deprioritised).join(', ') : 'none'
    }.`,
    '',
    'What keeps B prompt: every job carries its organisation as MessageGroupId (SQS fair queues on AWS; the local ' +
      'queue models their detection: > 10 % of in-flight with 30 in flight, or > 10 % of recent processing time); ' +
      "a subscription holds at most 2 attempts in flight and a failing one drops to the slow lane (once a minute, 3 s), so A's " +
      'tarpits hold at most 2 × 20 of the 50 dispatchers; 12 report workers exceed the 9 reports one organisation can ' +
      'run. Locally every function shares one process and two cores, so A still costs B CPU time that separate ' +
      'Lambda instances would not.',
    '',
  ].join('\n');
}

interface Org {
  name: string;
  orgId: string;
  token: string;
  channelId: string;
  chatId?: string;
}

async function provision(stack: LocalStack, name: string, index: number): Promise<Org> {
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

async function createGroup(stack: LocalStack, org: Org, receiver: EventReceiver, subject: string) {
  const { requestId } = await api<{ requestId: string }>(stack, 'POST', `/groups/${org.orgId}`, org.token, {
    channelId: org.channelId,
    subject,
  });
  const event = await receiver.arrival(`${org.orgId} group.created ${requestId}`, 60_000);
  return String(event.body.chat_id);
}

/** One sample of each of B's measures, in milliseconds from the API call to the event at B's receiver. */
function measureB(stack: LocalStack, b: Org, receiver: EventReceiver) {
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
function feedClient(stack: LocalStack, org: Org) {
  return createWpCrmClient({ baseUrl: stack.apiUrl.slice(0, -BASE_PATH.length), token: org.token });
}

/** Every event of the organisation's feed, oldest first. */
async function wholeFeed(stack: LocalStack, org: Org): Promise<FeedEvent[]> {
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
  stack: LocalStack,
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
