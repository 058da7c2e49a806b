import autocannon, { type Result } from 'autocannon';
import { type LocalStack, startLocalStack } from '#infra/local/stack';
import { deps } from '#shared/config/deps';
import { NETWORK_NOTIFICATIONS_QUEUE } from '#shared/ports/notification-inbox';
import { signedInboundGroupText, stackEnv } from '#test/support/stack-harness';

/** One autocannon run: latency percentiles (ms), throughput (requests/s) and what came back. */
export interface LoadFigures {
  connections: number;
  durationSeconds: number;
  requests: number;
  throughputPerSecond: number;
  latencyMs: { p50: number; p99: number; max: number };
  statusCodes: Record<string, number>;
  errors: number;
  timeouts: number;
}

export interface LoadReport {
  reports: LoadFigures & { accepted: number; refused: number; other: number };
  webhooks: LoadFigures & { generated: number; acknowledged: number; stored: number; lost: number; unexpected: number };
}

const figures = (result: Result, connections: number): LoadFigures => ({
  connections,
  durationSeconds: result.duration,
  requests: result.requests.total,
  throughputPerSecond: Math.round(result.requests.average),
  latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
  statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count])),
  errors: result.errors,
  timeouts: result.timeouts,
});

/**
 * RELIABILITY K-3 on loopback, against the whole local stack in this process:
 * 1. `POST /reports/{orgId}` for one type from `connections` clients: one 202 per 5-minute window, every other
 *    answer 409, nothing else.
 * 2. Meta's webhook with a unique signed inbound message per request into one group chat: every answer 2xx, and
 *    every acknowledged message stored exactly once (none lost, none made up).
 * The clients share the process (and the two cores) with the stack, so latencies include their own overhead.
 */
export async function runLoad(options: { connections: number; seconds: number; amount?: number }): Promise<LoadReport> {
  const stack = await startLocalStack({
    env: stackEnv({
      WPCRM_SWEEP_INTERVAL_MS: '600000',
      // Throughput is measured here, not the per-organisation quota (CONTRACT §18).
      ORG_REQUEST_RATE_LIMIT: '100000000/60',
    }),
  });
  try {
    return { reports: await loadReports(stack, options), webhooks: await loadWebhooks(stack, options) };
  } finally {
    await stack.close();
  }
}

async function token(stack: LocalStack, role: 'CRM_ADMIN' | 'CRM_AGENT') {
  const response = await fetch(`${stack.apiUrl}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(stack.demo!.credentials[role]),
  });
  return ((await response.json()) as { accessToken: string }).accessToken;
}

async function loadReports(stack: LocalStack, options: { connections: number; seconds: number; amount?: number }) {
  const result = await autocannon({
    url: `${stack.apiUrl}/reports/${stack.demo!.orgId}`,
    method: 'POST',
    connections: options.connections,
    duration: options.seconds,
    amount: options.amount,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await token(stack, 'CRM_ADMIN')}` },
    body: JSON.stringify({ reportType: 'CHAT' }),
  });
  const base = figures(result, options.connections);
  const accepted = base.statusCodes['202'] ?? 0;
  const refused = base.statusCodes['409'] ?? 0;
  return { ...base, accepted, refused, other: base.requests - accepted - refused };
}

async function loadWebhooks(stack: LocalStack, options: { connections: number; seconds: number; amount?: number }) {
  const { chatId, groupId } = await groupChat(stack);
  const appSecret = stack.config.whatsapp.appSecret;
  const run = `${Date.now().toString(36)}`;
  let generated = 0;
  const sent = new Set<string>();
  const acknowledged = new Set<string>();
  const result = await autocannon({
    url: `${stack.apiUrl}/network/whatsapp/webhook`,
    connections: options.connections,
    duration: options.seconds,
    amount: options.amount,
    requests: [
      {
        method: 'POST',
        setupRequest: (request, context) => {
          const wamid = `wamid.load-${run}-${++generated}`;
          context.wamid = wamid;
          sent.add(wamid);
          return { ...request, ...signedInboundGroupText({ groupId, wamid, text: wamid }, appSecret) };
        },
        onResponse: (status, _, context) => {
          if (status >= 200 && status < 300) acknowledged.add(context.wamid as string);
        },
      },
    ],
  });
  // The webhook kept what it acknowledged; the worker behind it applies it (CONTRACT §21): count once it is done.
  await applied(stack);
  const stored = await storedInbound(stack, chatId, run);
  return {
    ...figures(result, options.connections),
    generated,
    acknowledged: acknowledged.size,
    stored: stored.size,
    lost: [...acknowledged].filter((wamid) => !stored.has(wamid)).length,
    unexpected: [...stored].filter((wamid) => !sent.has(wamid)).length,
  };
}

/** A group chat of the demo organisation, created through the API and confirmed by the simulator. */
async function groupChat(stack: LocalStack) {
  const authorization = `Bearer ${await token(stack, 'CRM_ADMIN')}`;
  const orgId = stack.demo!.orgId;
  const created = await fetch(`${stack.apiUrl}/groups/${orgId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization },
    body: JSON.stringify({ channelId: stack.demo!.channels.eligible, subject: 'Load' }),
  });
  const { requestId } = (await created.json()) as { requestId: string };
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const status = (await (
      await fetch(`${stack.apiUrl}/groups/${orgId}/creation-status/${requestId}`, { headers: { authorization } })
    ).json()) as { status: string; chatId?: string };
    if (status.chatId) {
      const chat = await deps().chats.getChat(orgId, status.chatId);
      return { chatId: status.chatId, groupId: chat!.externalChatId! };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`group ${requestId} was not created`);
}

/** Waits (at most a minute) until the network-notifications queue holds nothing: every kept notification applied. */
async function applied(stack: LocalStack): Promise<void> {
  const queue = stack.queues.get(NETWORK_NOTIFICATIONS_QUEUE);
  const deadline = Date.now() + 60_000;
  while (queue && queue.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** The network ids of the chat's stored inbound messages of this run. */
async function storedInbound(stack: LocalStack, chatId: string, run: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await deps().chats.listMessages(stack.demo!.orgId, chatId, { limit: 1000, startKey });
    for (const message of page.items) {
      if (message.direction === 'INBOUND' && message.networkMessageId?.startsWith(`wamid.load-${run}-`)) {
        ids.add(message.networkMessageId);
      }
    }
    startKey = page.nextKey;
  } while (startKey);
  return ids;
}
