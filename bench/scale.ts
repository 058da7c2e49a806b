import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type LocalStack, startLocalStack } from '#infra/local/stack';
import { deps } from '#shared/config/deps';
import { createChannel, createCredential, createOrg } from '#shared/domain/orgs/administer';
import { stackEnv } from '#test/support/stack-harness';
import { CapacityMeter } from './capacity-meter.ts';
import { percentile } from './stats.ts';

/** What the scale run measured (docs/SCALE.md, "What a machine here shows"). */
export interface ScaleReport {
  organisations: number;
  messagesPerOrganisation: number;
  phases: Record<string, PhaseFigures>;
  /** Every event each organisation should have received, and what arrived at its receiver. */
  deliveries: { expected: number; delivered: number; lost: number; foreign: number };
  dynamodb: {
    tableWriteUnits: number;
    tablePartitions: number;
    /** The partitions that took the most write units, with their share of all the table's (or index's) writes. */
    hottestTable: PartitionFigure[];
    hottestIndex: PartitionFigure[];
    /** Writes per key shape (ids replaced by `*`): which kinds of partition the workload heats. */
    byShape: PartitionFigure[];
  };
}

export interface PhaseFigures {
  operations: number;
  seconds: number;
  perSecond: number;
  /** From the call to the event at the organisation's receiver (or to the answer, for API-only phases). */
  latencyMs: { p50: number; p99: number; max: number };
  /** DynamoDB write units (table and indexes) the phase consumed per operation, its events' deliveries included. */
  writeUnitsPerOperation?: number;
}

export interface PartitionFigure {
  partition: string;
  writeUnits: number;
  share: number;
}

export interface ScaleOptions {
  organisations: number;
  messagesPerOrganisation: number;
  /** Requests in flight at once from the load generator. */
  concurrency: number;
  log?: (line: string) => void;
}

/**
 * The local stack with many organisations at once: each gets a credential, an eligible channel on its own
 * phone-number id and a webhook subscription; then every organisation, concurrently, takes a token, creates a group,
 * has a member join and sends messages into it, and the member answers. Every event must reach its own
 * organisation's receiver (none lost, none crossing organisations), and a capacity meter counts DynamoDB write units
 * per partition, which shows the table design's hot keys at this scale. Loopback on one machine: the latencies are
 * the local stack's, not Lambda's; the partition shares carry over to AWS.
 */
export async function runScale(options: ScaleOptions): Promise<ScaleReport> {
  const log = options.log ?? (() => undefined);
  const receiver = await Receiver.start();
  const stack = await startLocalStack({
    env: stackEnv({
      WPCRM_SWEEP_INTERVAL_MS: '600000',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
    }),
  });
  const meter = new CapacityMeter({
    region: stack.config.aws.region,
    endpoint: stack.info.endpoints.dynamodb,
    credentials: stack.info.credentials,
  });
  try {
    stack.simulator!.options.webhookDelayMs = 0;
    const phases: Record<string, PhaseFigures> = {};
    const written = () => [...meter.partitionWrites.values()].reduce((sum, units) => sum + units, 0);
    const measured = async (run: () => Promise<PhaseFigures>) => {
      const before = written();
      const figures = await run();
      await stack.simulator!.flushWebhooks();
      return { ...figures, writeUnitsPerOperation: Math.round(((written() - before) / figures.operations) * 10) / 10 };
    };
    const orgs = await provision(stack, options.organisations, options.concurrency);
    log(`provisioned ${orgs.length} organisations`);
    meter.install();

    phases.token = await measured(() =>
      timed(orgs, options.concurrency, async (org) => {
        org.token = await api<{ accessToken: string }>(stack, 'POST', '/token', undefined, org.credential).then(
          (answer) => answer.accessToken,
        );
      }),
    );
    log(`tokens: ${phases.token.perSecond}/s`);
    await forEach(orgs, options.concurrency, async (org) => {
      await api(stack, 'POST', `/webhooks/${org.orgId}`, org.token, { url: `${receiver.url}/${org.orgId}` });
    });

    phases.groupCreated = await measured(() =>
      timedUntil(orgs, options.concurrency, receiver, async (org) => {
        const { requestId } = await api<{ requestId: string }>(stack, 'POST', `/groups/${org.orgId}`, org.token, {
          channelId: org.channelId,
          subject: `Scale ${org.index}`,
        });
        return [`${org.orgId} group.created ${requestId}`];
      }),
    );
    log(`groups: ${phases.groupCreated.perSecond}/s`);
    await forEach(orgs, options.concurrency, async (org) => {
      const created = receiver.find(org.orgId, 'group.created');
      org.chatId = created.chat_id as string;
      org.groupId = (await deps().chats.getChat(org.orgId, org.chatId))!.externalChatId!;
      stack.simulator!.join(org.groupId, org.member);
    });
    await stack.simulator!.flushWebhooks();

    const sends = orgs.flatMap((org) => Array.from({ length: options.messagesPerOrganisation }, () => org));
    phases.messageDelivered = await measured(() =>
      timedUntil(sends, options.concurrency, receiver, async (org) => {
        const { messageId } = await api<{ messageId: string }>(stack, 'POST', '/messaging/send-message', org.token, {
          chatId: org.chatId,
          text: 'Hello from the scale run',
        });
        return [`${org.orgId} message.status ${messageId} delivered`];
      }),
    );
    log(`outbound messages: ${phases.messageDelivered.perSecond}/s`);

    phases.messageReceived = await measured(() =>
      timedUntil(sends, options.concurrency, receiver, async (org) => {
        const messageId = stack.simulator!.receiveMessage(org.groupId!, { from: org.member, text: 'Thanks!' });
        return [`${org.orgId} message.received wamid ${messageId}`];
      }),
    );
    log(`inbound messages: ${phases.messageReceived.perSecond}/s`);

    const expected = orgs.length * (2 + 3 * options.messagesPerOrganisation);
    return {
      organisations: orgs.length,
      messagesPerOrganisation: options.messagesPerOrganisation,
      phases,
      deliveries: {
        expected,
        delivered: receiver.count,
        lost: receiver.lost(
          orgs.map((org) => org.orgId),
          options.messagesPerOrganisation,
        ),
        foreign: receiver.foreign,
      },
      dynamodb: partitionFigures(meter.partitionWrites),
    };
  } catch (error) {
    options.log?.(`failed: ${(error as Error).message}; ${JSON.stringify(await diagnose(stack))}`);
    throw error;
  } finally {
    meter.uninstall();
    await stack.close();
    await receiver.close();
  }
}

/** Where undelivered work sits: queues, dead-letter queues, unpublished events, the simulator's deliveries. */
async function diagnose(stack: LocalStack) {
  const queues = Object.fromEntries([...stack.queues].map(([name, queue]) => [name, queue.size]));
  const { DynamoEventOutbox } = await import('#shared/adapters/dynamodb/event-outbox');
  const outbox = new DynamoEventOutbox(deps().db, stack.info.tableName);
  const unpublished = (await outbox.listUnpublished(1000)).length;
  const webhooks = stack.simulator?.webhookLog ?? [];
  const notDelivered = webhooks.filter((entry) => entry.state !== 'delivered').map((entry) => entry.lastError);
  return { queues, unpublished, simulatorNotifications: webhooks.length, notDelivered: notDelivered.slice(0, 5) };
}

interface Org {
  index: number;
  orgId: string;
  credential: { clientId: string; clientSecret: string };
  channelId: string;
  member: string;
  token?: string;
  chatId?: string;
  groupId?: string;
}

async function provision(stack: LocalStack, count: number, concurrency: number): Promise<Org[]> {
  const orgs: Org[] = [];
  await forEach(
    Array.from({ length: count }, (_, index) => index),
    concurrency,
    async (index) => {
      const d = deps();
      const { orgId } = await createOrg(d, { name: `Scale ${index}` });
      const { clientId, clientSecret } = await createCredential(d, { orgId, roles: ['CRM_ADMIN'] });
      const number = String(index).padStart(6, '0');
      const { channelId } = await createChannel(d, {
        orgId,
        name: `WhatsApp ${index}`,
        type: 'MESSAGING_OFFICIAL',
        phoneNumber: `+4915${number}0001`,
        officialBusinessAccount: true,
        phoneNumberId: `2000${number}00001`,
        accessToken: 'local-simulator-access-token',
      });
      orgs.push({
        index,
        orgId,
        credential: { clientId, clientSecret },
        channelId,
        member: `4917${number}2222`,
      });
    },
  );
  if (!stack.simulator) throw new Error('the scale run needs the simulator');
  return orgs.sort((a, b) => a.index - b.index);
}

async function api<T = unknown>(
  stack: LocalStack,
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
): Promise<T> {
  const response = await fetch(`${stack.apiUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

async function forEach<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

async function timed<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<PhaseFigures> {
  const latencies: number[] = [];
  const started = performance.now();
  await forEach(items, concurrency, async (item) => {
    const at = performance.now();
    await work(item);
    latencies.push(performance.now() - at);
  });
  return phase(latencies, performance.now() - started);
}

/** Runs `work` for each item; each names the receiver events it waits for; the latency runs to the last of them. */
async function timedUntil<T>(
  items: T[],
  concurrency: number,
  receiver: Receiver,
  work: (item: T) => Promise<string[]>,
): Promise<PhaseFigures> {
  const latencies: number[] = [];
  const waits: Promise<void>[] = [];
  const started = performance.now();
  await forEach(items, concurrency, async (item) => {
    const at = performance.now();
    const keys = await work(item);
    waits.push(
      Promise.all(keys.map((key) => receiver.arrival(key))).then((times) => {
        latencies.push(Math.max(...times) - at);
      }),
    );
  });
  await receiver.settled(waits, 120_000);
  return phase(latencies, performance.now() - started);
}

function phase(latencies: number[], elapsedMs: number): PhaseFigures {
  const round = (value: number) => Math.round(value * 10) / 10;
  return {
    operations: latencies.length,
    seconds: round(elapsedMs / 1000),
    perSecond: round(latencies.length / (elapsedMs / 1000)),
    latencyMs: {
      p50: round(percentile(latencies, 50)),
      p99: round(percentile(latencies, 99)),
      max: round(Math.max(...latencies)),
    },
  };
}

const ID = /(?<=#)[^#]+/g;

function partitionFigures(writes: Map<string, number>): ScaleReport['dynamodb'] {
  const table = [...writes].filter(([key]) => key.startsWith('table '));
  const index = [...writes].filter(([key]) => !key.startsWith('table '));
  const total = (entries: [string, number][]) => entries.reduce((sum, [, units]) => sum + units, 0);
  const top = (entries: [string, number][], count: number, of = total(entries)): PartitionFigure[] =>
    entries
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([partition, writeUnits]) => ({ partition, writeUnits, share: Math.round((writeUnits / of) * 1000) / 10 }));
  const shapes = new Map<string, number>();
  for (const [key, units] of writes) {
    const shape = key.replace(ID, (id) => (/^[A-Z_]+$/.test(id) && id.length < 20 ? id : '*'));
    shapes.set(shape, (shapes.get(shape) ?? 0) + units);
  }
  return {
    tableWriteUnits: total(table),
    tablePartitions: table.length,
    hottestTable: top(table, 5),
    hottestIndex: top(index, 5),
    byShape: top([...shapes], 15, total([...writes])),
  };
}

/** One loopback receiver for every organisation's subscription (`/<orgId>`): it records each event on arrival. */
class Receiver {
  count = 0;
  foreign = 0;
  #arrivals = new Map<string, number>();
  #waiting = new Map<string, (at: number) => void>();
  #events = new Map<string, Record<string, unknown>[]>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<Receiver> {
    let receiver: Receiver | undefined;
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      request.on('end', () => {
        response.end('ok');
        receiver!.#record(request.url!.slice(1), JSON.parse(body) as Record<string, unknown>);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new Receiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return receiver;
  }

  #record(orgId: string, event: Record<string, unknown>) {
    const at = performance.now();
    if (event.organisation_id !== orgId) this.foreign += 1;
    this.count += 1;
    const events = this.#events.get(orgId) ?? [];
    events.push(event);
    this.#events.set(orgId, events);
    for (const key of keysOf(orgId, event)) {
      if (this.#arrivals.has(key)) continue;
      this.#arrivals.set(key, at);
      this.#waiting.get(key)?.(at);
      this.#waiting.delete(key);
    }
  }

  /**
   * Waits for `waits`; when no event has arrived for `quietMs`, fails naming the events still awaited (a lost event
   * is a finding, not a hang).
   */
  async settled(waits: Promise<unknown>[], quietMs: number): Promise<void> {
    let lastCount = this.count;
    let quietSince = Date.now();
    const all = Promise.all(waits);
    for (;;) {
      const done = await Promise.race([all.then(() => true), new Promise((r) => setTimeout(() => r(false), 1_000))]);
      if (done) return;
      if (this.count !== lastCount) {
        lastCount = this.count;
        quietSince = Date.now();
      } else if (Date.now() - quietSince > quietMs) {
        const missing = [...this.#waiting.keys()];
        throw new Error(`${missing.length} events never arrived, e.g. ${missing.slice(0, 5).join('; ')}`);
      }
    }
  }

  /** When the event named by `key` arrived (waits for it). */
  arrival(key: string): Promise<number> {
    const at = this.#arrivals.get(key);
    if (at !== undefined) return Promise.resolve(at);
    return new Promise((resolve) => this.#waiting.set(key, resolve));
  }

  find(orgId: string, type: string): Record<string, unknown> {
    const event = this.#events.get(orgId)?.find((candidate) => candidate.type === type);
    if (!event) throw new Error(`no ${type} for ${orgId}`);
    return event;
  }

  /** Events an organisation's receiver lacks: group.created, the member's join, and per message sent, delivered, received. */
  lost(orgIds: string[], messages: number): number {
    let missing = 0;
    for (const orgId of orgIds) {
      const events = this.#events.get(orgId) ?? [];
      const count = (type: string, status?: string) =>
        events.filter((event) => event.type === type && (status === undefined || event.status === status)).length;
      const gaps = [
        1 - count('group.created'),
        1 - count('group.participants_changed'),
        messages - count('message.status', 'sent'),
        messages - count('message.status', 'delivered'),
        messages - count('message.received'),
      ];
      if (process.env.SCALE_DEBUG && gaps.some((gap) => gap > 0)) console.error(orgId, gaps, events);
      for (const gap of gaps) missing += Math.max(0, gap);
    }
    return missing;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function keysOf(orgId: string, event: Record<string, unknown>): string[] {
  switch (event.type) {
    case 'group.created':
      return [`${orgId} group.created ${String(event.request_id)}`];
    case 'message.status':
      return [`${orgId} message.status ${String(event.message_id)} ${String(event.status)}`];
    case 'message.received':
      return [`${orgId} message.received wamid ${String(event.external_message_id)}`];
    default:
      return [];
  }
}
