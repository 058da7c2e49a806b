import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { invocationStats, runningFunction } from '#infra/local/lambda';
import { type LocalStack, startLocalStack } from '#infra/local/stack';
import { stackEnv } from '#test/support/stack-harness';
import { CapacityMeter, type OperationCapacity } from './capacity-meter.ts';
import { percentile } from './stats.ts';

const run = promisify(execFile);
const AUTOCANNON = new URL('../node_modules/autocannon/autocannon.js', import.meta.url).pathname;

export interface FlowUsage {
  groups: number;
  /** DynamoDB capacity per function (`function:operation`), summed over the groups. */
  capacity: Map<string, OperationCapacity>;
  /** Invocations and summed run time per function. */
  functions: Map<string, { invocations: number; totalMs: number }>;
  sqsMessages: number;
  busEvents: number;
  apiRequests: number;
  polls: number;
}

/**
 * P4: create group → `group.created` at a loopback webhook receiver, through the whole local stack (HTTP front,
 * create-group, the group-requests queue, group-worker, the WhatsApp simulator confirming at once, the signed Meta
 * webhook, the bus, the delivery queue and the dispatcher), one request at a time. Then the poll endpoint's
 * throughput with autocannon (another process) against a bare Node HTTP server answering the same JSON.
 * A separate pass with the capacity meter installed creates groups and polls each once, measuring what each
 * created group costs (P5).
 */
export async function groupEndToEndBenchmark(options: { requests: number; meteredRequests: number; seconds: number }) {
  const stack = await startLocalStack({
    env: stackEnv({
      GROUP_CREATE_RATE_LIMIT: '1000000/60',
      ORG_REQUEST_RATE_LIMIT: '100000000/60',
      // The sweepers find nothing to do here; a long tick keeps their table reads out of the figures.
      WPCRM_SWEEP_INTERVAL_MS: '600000',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
    }),
  });
  const receiver = await WebhookReceiver.start();
  try {
    stack.simulator!.options.webhookDelayMs = 0;
    const demo = stack.demo!;
    const api = (path: string, init: RequestInit = {}) => fetch(`${stack.apiUrl}${path}`, init);
    const { accessToken } = (await (
      await api('/token', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(demo.credentials.CRM_ADMIN),
      })
    ).json()) as { accessToken: string };
    const auth = { authorization: `Bearer ${accessToken}` };
    const subscribed = await api(`/webhooks/${demo.orgId}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${receiver.url}/hooks`, events: ['group.created'] }),
    });
    if (subscribed.status !== 201) throw new Error(`webhook subscription failed: ${subscribed.status}`);

    const createOne = async () => {
      const started = performance.now();
      const response = await api(`/groups/${demo.orgId}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ channelId: demo.channels.eligible, subject: 'Bench group' }),
      });
      const accepted = (await response.json()) as { requestId: string };
      if (response.status !== 202) throw new Error(`create failed: ${response.status} ${JSON.stringify(accepted)}`);
      const acceptedMs = performance.now() - started;
      await receiver.created(accepted.requestId);
      return { requestId: accepted.requestId, acceptedMs, createdMs: performance.now() - started };
    };

    for (let index = 0; index < Math.min(10, options.requests); index++) await createOne();
    const acceptedMs: number[] = [];
    const createdMs: number[] = [];
    let lastRequestId = '';
    for (let index = 0; index < options.requests; index++) {
      const result = await createOne();
      acceptedMs.push(result.acceptedMs);
      createdMs.push(result.createdMs);
      lastRequestId = result.requestId;
    }

    const poll = async (requestId: string) => {
      const response = await api(`/groups/${demo.orgId}/creation-status/${requestId}`, { headers: auth });
      if (response.status !== 200) throw new Error(`poll failed: ${response.status}`);
      await response.arrayBuffer();
    };
    const usage = await meteredFlow(stack, options.meteredRequests, async () => poll((await createOne()).requestId));

    const pollPath = `/groups/${demo.orgId}/creation-status/${lastRequestId}`;
    const polled = await api(pollPath, { headers: auth });
    const pollBody = await polled.text();
    if (polled.status !== 200) throw new Error(`poll failed: ${polled.status}`);
    const bare = await bareServer(pollBody);
    try {
      const bareRps = await autocannon(`${bare.url}${pollPath}`, auth, options.seconds);
      const stackRps = await autocannon(`${stack.apiUrl}${pollPath}`, auth, options.seconds);
      return {
        requests: options.requests,
        accepted: { p50: percentile(acceptedMs, 50), p99: percentile(acceptedMs, 99) },
        created: { p50: percentile(createdMs, 50), p99: percentile(createdMs, 99) },
        poll: { stack: stackRps, bare: bareRps, ratio: stackRps.requestsPerSecond / bareRps.requestsPerSecond },
        usage,
      };
    } finally {
      await new Promise<void>((resolve) => bare.server.close(() => resolve()));
    }
  } finally {
    await receiver.stop();
    await stack.close();
  }
}

async function meteredFlow(stack: LocalStack, groups: number, createOne: () => Promise<unknown>): Promise<FlowUsage> {
  const endpoint = stack.info.endpoints.dynamodb;
  const meter = new CapacityMeter(
    { region: stack.config.aws.region, endpoint, credentials: stack.info.credentials },
    runningFunction,
  ).install();
  let sqsMessages = 0;
  const restore: (() => void)[] = [];
  for (const queue of stack.queues.values()) {
    const send = queue.send.bind(queue);
    queue.send = (...args: Parameters<typeof send>) => {
      sqsMessages += 1;
      return send(...args);
    };
    restore.push(() => {
      queue.send = send;
    });
  }
  const busBefore = stack.bus.published.length;
  const before = new Map([...invocationStats()].map(([name, entry]) => [name, { ...entry }]));
  try {
    for (let index = 0; index < groups; index++) await createOne();
    // The last delivery's bookkeeping (its attempt record) may still be running when the receiver has the body.
    await new Promise((resolve) => setTimeout(resolve, 200));
  } finally {
    meter.uninstall();
    for (const undo of restore) undo();
  }
  const functions = new Map<string, { invocations: number; totalMs: number }>();
  for (const [name, entry] of invocationStats()) {
    const previous = before.get(name) ?? { invocations: 0, totalMs: 0 };
    const invocations = entry.invocations - previous.invocations;
    if (invocations > 0) functions.set(name, { invocations, totalMs: entry.totalMs - previous.totalMs });
  }
  return {
    groups,
    capacity: new Map(meter.operations),
    functions,
    sqsMessages,
    busEvents: stack.bus.published.length - busBefore,
    apiRequests: functions.get('create-group')?.invocations ?? 0,
    polls: functions.get('get-group-status')?.invocations ?? 0,
  };
}

/** Loopback receiver of the service's webhooks: resolves a waiter when `group.created` for a request arrives. */
class WebhookReceiver {
  readonly #waiters = new Map<string, () => void>();
  readonly #seen = new Set<string>();
  url = '';

  private constructor(private readonly server: Server) {}

  static async start(): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        response.writeHead(204).end();
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type?: string; request_id?: string };
        if (event.type === 'group.created' && event.request_id) receiver!.#arrived(event.request_id);
      });
    });
    receiver = new WebhookReceiver(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return receiver;
  }

  created(requestId: string, timeoutMs = 30_000): Promise<void> {
    if (this.#seen.has(requestId)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no group.created for ${requestId}`)), timeoutMs);
      this.#waiters.set(requestId, () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  #arrived(requestId: string) {
    this.#seen.add(requestId);
    this.#waiters.get(requestId)?.();
    this.#waiters.delete(requestId);
  }

  async stop() {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The baseline: a bare Node HTTP server answering every request with the poll endpoint's JSON. */
async function bareServer(body: string) {
  const server = createServer((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'bare' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/wp-crm` };
}

/** autocannon in its own process (10 connections), so the load generator does not share this event loop. */
async function autocannon(url: string, headers: Record<string, string>, seconds: number) {
  const args = [AUTOCANNON, '-j', '-c', '10', '-d', String(seconds)];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}=${value}`);
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.NODE_OPTIONS;
  const { stdout } = await run(process.execPath, [...args, url], { env, maxBuffer: 16 * 1024 * 1024 });
  const result = JSON.parse(stdout) as {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
  };
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`autocannon against ${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  }
  return {
    requestsPerSecond: result.requests.average,
    total: result.requests.total,
    latencyP50: result.latency.p50,
    latencyP99: result.latency.p99,
  };
}
