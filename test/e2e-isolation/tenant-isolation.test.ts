import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNCTIONS, type FunctionRow } from '#infra/aws/functions';
import { pascalCase } from '#infra/aws/naming';
import type { CdkStack } from '#infra/cdk-local/stack';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { webhookKeys } from '#shared/adapters/dynamodb/keys';
import type { Role } from '#shared/domain/auth/roles';
import { OPERATION_EXAMPLES, PATH_PARAMETER_EXAMPLES } from '#shared/openapi/examples';
import { ROUTES } from '#shared/routes/index';
import type { RouteDef } from '#shared/routes/route';
import { killCliProcesses, wpcrm } from '#test/support/cli';
import { eventually } from '#test/support/eventually';
import { stackEnv } from '#test/support/stack-harness';

/**
 * CONTRACT §25, proven: each function that acts for an organisation is told (the test-only fault switch) to hand its
 * use case and stores another organisation's id while it keeps the credentials of the organisation it acts for, and
 * AWS — the IAM of the synthesized template, enforced by start:cdk — refuses its call: an AccessDenied in the IAM
 * report under that function's organisation session, a request that fails safely (5xx, nothing answered), and
 * nothing of the other organisation read or written. A stack of its own: its denials are this test's, never the
 * suite's (whose teardown requires none).
 */
// Against a deployment named by BASE_URL there is no fault switch to turn: the test runs its own stack or nothing.
const external = Boolean(process.env.E2E_BASE_URL);

/** The functions that act for one organisation: those whose row gives them the tenant-access role. */
const actsForOrganisation = (row: FunctionRow) =>
  Boolean(
    (row.access.table && !row.access.tableKeys) ||
      row.access.reports ||
      row.access.webhookSecrets ||
      row.access.callsNetwork,
  );

const WORKERS = [
  'group-worker',
  'message-sender',
  'report-worker',
  'feed-writer',
  'webhook-dispatcher',
  'slow-receiver-dispatcher',
];
const SWEEPERS = ['group-sweeper', 'report-sweeper', 'report-schedule-sweeper', 'webhook-sweeper'];
/** Functions that act for an organisation and are not switched here, and why. */
const NOT_IN_THIS_TABLE: Record<string, string> = {
  'apply-network-notifications':
    "hands its use case no organisation id: each change's organisation comes from Meta's ids (channel by number, group and message links)",
};

describe.skipIf(external)('tenant isolation enforced by IAM under the synthesized template (CONTRACT §25)', () => {
  let stack: CdkStack;
  let dir: string;
  let foreign: string;
  let foreignItems: Record<string, unknown>[];
  const tokens = new Map<Role, string>();
  let chatId: string;
  let _groupId: string;

  const orgId = () => stack.demo!.orgId;
  const api = (path: string, init: RequestInit & { token?: string; json?: unknown } = {}) => {
    const { token, json, headers, ...rest } = init;
    const merged = new Headers(headers);
    if (token) merged.set('authorization', `Bearer ${token}`);
    if (json !== undefined) merged.set('content-type', 'application/json');
    return fetch(`${stack.apiUrl}${path}`, {
      ...rest,
      headers: merged,
      body: json === undefined ? rest.body : JSON.stringify(json),
    });
  };
  const cli = async (...args: string[]) => {
    const result = await wpcrm(args, dir, 120_000);
    if (result.status !== 0) throw new Error(`wpcrm ${args.join(' ')}: ${result.stderr}`);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  };

  /** The function's logical id under start:cdk (`<Concern><Function>Function<hash>`, a consumer by its queue). */
  const logicalIdOf = (fn: string) => {
    const row = FUNCTIONS[fn]!;
    const name = row.queue ? `${pascalCase(row.queue.name)}Consumer` : pascalCase(fn);
    const pattern = new RegExp(`^${row.concern}${name}Function[0-9A-F]{8}$`);
    const found = [...stack.functions.keys()].filter((id) => pattern.test(id));
    expect(found, fn).toHaveLength(1);
    return found[0]!;
  };
  /** Calls the function was denied with an organisation's session (`<function>@<tenant role>` in the report). */
  const deniedWithOrganisation = (logicalId: string) =>
    Object.entries(stack.iamReport().functions)
      .filter(([principal]) => principal.startsWith(`${logicalId}@`))
      .flatMap(([, entry]) => entry.denied)
      .reduce((sum, denial) => sum + denial.count, 0);
  const deniedOwn = () =>
    Object.entries(stack.iamReport().functions)
      .filter(([principal]) => !principal.includes('@'))
      .flatMap(([principal, entry]) => entry.denied.map((denial) => ({ principal, ...denial })));

  let lastDelivery: { webhookId: string; deliveryId: string } | undefined;

  /** A delivery attempt of the demo organisation on the slow receivers' queue, as the dispatcher moves one there. */
  function slowAttempt(): void {
    const [, queue] = [...stack.queues].find(
      ([name]) => name.includes('WebhookSlowReceiversQueue') && !name.includes('DeadLetter'),
    )!;
    const { webhookId, deliveryId } = lastDelivery!;
    queue.send(JSON.stringify({ kind: 'attempt', orgId: orgId(), webhookId, deliveryId }), 0, orgId());
  }

  /** A delivery of the demo organisation put back on the due list, its long retry wait over (as the dispatcher does). */
  async function dueDelivery(): Promise<void> {
    const db = createDocumentClient({
      region: 'eu-west-1',
      endpoint: stack.info.endpoints.dynamodb,
      credentials: stack.info.credentials,
    });
    const { Items = [] } = await db.send(
      new ScanCommand({
        TableName: stack.info.tableName,
        FilterExpression: 'begins_with(PK, :pk) AND begins_with(SK, :dlv)',
        ExpressionAttributeValues: { ':pk': `ORG#${orgId()}#WHK#`, ':dlv': 'DLV#' },
      }),
    );
    const delivery = Items[0]!;
    lastDelivery = delivery as { webhookId: string; deliveryId: string };
    const past = new Date(Date.now() - 60_000).toISOString();
    const { orgId: org, webhookId, deliveryId } = delivery as { orgId: string; webhookId: string; deliveryId: string };
    await db.send(
      new PutCommand({
        TableName: stack.info.tableName,
        Item: { ...delivery, ...webhookKeys.due(past, org, webhookId, deliveryId) },
      }),
    );
    db.destroy();
  }

  /** Every item of the foreign organisation, as the table holds it. */
  async function itemsOf(org: string): Promise<Record<string, unknown>[]> {
    const db = createDocumentClient({
      region: 'eu-west-1',
      endpoint: stack.info.endpoints.dynamodb,
      credentials: stack.info.credentials,
    });
    const items: Record<string, unknown>[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await db.send(new ScanCommand({ TableName: stack.info.tableName, ExclusiveStartKey }));
      items.push(...(page.Items ?? []).filter((item) => JSON.stringify(item).includes(org)));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    db.destroy();
    return items.sort((a, b) => `${a.PK}${a.SK}`.localeCompare(`${b.PK}${b.SK}`));
  }

  /**
   * Runs `act` with the fault switch on for `fn` (and for `alsoFaulty`, which keep the work it needs open), and waits
   * for IAM's refusal of `fn`'s organisation session.
   */
  async function refused(fn: string, act: () => Promise<void>, alsoFaulty: string[] = [], timeoutMs = 30_000) {
    const logicalId = logicalIdOf(fn);
    const before = deniedWithOrganisation(logicalId);
    await stack.setFault({ functions: [logicalId, ...alsoFaulty.map(logicalIdOf)], foreignOrg: foreign });
    try {
      await act();
      await eventually(() => expect(deniedWithOrganisation(logicalId), fn).toBeGreaterThan(before), {
        timeoutMs,
        intervalMs: 100,
      });
    } finally {
      await stack.setFault(undefined);
    }
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wpcrm-tenant-'));
    const { startCdkStack } = await import('#infra/cdk-local/stack');
    stack = await startCdkStack({
      env: stackEnv({
        WPCRM_DATA_DIR: dir,
        WPCRM_SWEEP_INTERVAL_MS: '500',
        WPCRM_IAM: 'enforce',
        // One environment per function: this test runs each once or twice.
        WPCRM_LAMBDA_MAX_ENVIRONMENTS: '1',
      }),
      testFaults: true,
    });
    for (const role of ['ACCOUNT_OWNER', 'CRM_ADMIN', 'CRM_BOT', 'CRM_AGENT'] as const) {
      const issued = await api('/token', { method: 'POST', json: stack.demo!.credentials[role] });
      tokens.set(role, ((await issued.json()) as { accessToken: string }).accessToken);
    }
    // The other organisation, with records, a channel and a subscription of its own.
    foreign = String((await cli('org', 'create', '--name', 'Foreign')).orgId);
    await cli('data', 'generate', '--org', foreign, '--scale', '1');
    // The demo organisation's group, for the routes and workers that need one.
    const requested = await api(`/groups/${orgId()}`, {
      method: 'POST',
      token: tokens.get('CRM_ADMIN'),
      json: { channelId: stack.demo!.channels.eligible, subject: 'Isolation crew' },
    });
    const { requestId } = (await requested.json()) as { requestId: string };
    const created = await eventually(
      async () => {
        const status = (await (
          await api(`/groups/${orgId()}/creation-status/${requestId}`, { token: tokens.get('CRM_ADMIN') })
        ).json()) as { status: string; chatId?: string };
        expect(status.status).toBe('created');
        return status;
      },
      { timeoutMs: 60_000 },
    );
    chatId = created.chatId!;
    const chat = (await (await api(`/chats/${orgId()}/${chatId}`, { token: tokens.get('CRM_ADMIN') })).json()) as {
      externalChatId: string;
    };
    _groupId = chat.externalChatId;
    // A subscription of the demo organisation: the dispatcher has something to deliver to.
    const subscribed = await api(`/webhooks/${orgId()}`, {
      method: 'POST',
      token: tokens.get('CRM_ADMIN'),
      json: { url: `${stack.apiUrl}/health`, events: ['*'] },
    });
    expect(subscribed.status).toBe(201);
    foreignItems = await itemsOf(foreign);
  }, 600_000);

  afterAll(async () => {
    killCliProcesses();
    await stack?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('covers every function that acts for an organisation, but for the few named here with the reason', () => {
    const acting = Object.keys(FUNCTIONS).filter((fn) => actsForOrganisation(FUNCTIONS[fn]!));
    const covered = new Set([...routes.map((route) => route.fn), ...WORKERS, ...SWEEPERS]);
    expect(acting.filter((fn) => !covered.has(fn)).sort()).toEqual(Object.keys(NOT_IN_THIS_TABLE).sort());
  });

  /** The authenticated routes of functions that act for an organisation, each with a request its schema accepts. */
  const routes: (RouteDef & { auth: readonly Role[] })[] = ROUTES.filter(
    (route): route is RouteDef & { auth: readonly Role[] } =>
      route.auth !== 'public' && actsForOrganisation(FUNCTIONS[route.fn]!),
  );

  it.each(routes.map((route) => [route.operationId, route] as const))(
    'refuses %s’s calls for another organisation',
    async (_name, route) => {
      const path = route.path.replace(/\{(\w+)\}/g, (_match, name: string) =>
        name === route.orgParam ? orgId() : name === 'chatId' ? chatId : (PATH_PARAMETER_EXAMPLES[name] ?? 'x'),
      );
      const example = OPERATION_EXAMPLES[route.operationId]?.request;
      // A subscription's receiver this machine reaches (the example's host does not resolve here).
      const local = {
        sendMessage: { chatId, text: 'isolated' },
        createWebhook: { url: `${stack.apiUrl}/health`, events: ['*'] },
      };
      const body = local[route.operationId as keyof typeof local] ?? (route.body ? (example ?? {}) : undefined);
      let status = 0;
      await refused(route.fn, async () => {
        const response = await api(path, {
          method: route.method,
          token: tokens.get(route.auth.includes('CRM_ADMIN') ? 'CRM_ADMIN' : route.auth[0]!),
          json: body,
          headers: route.idempotent ? { 'idempotency-key': randomUUID() } : {},
        });
        status = response.status;
        const text = await response.text();
        // Failing safely: nothing of either organisation in the answer, only a problem document.
        expect(text).not.toContain(foreign);
      });
      expect(status, route.operationId).toBeGreaterThanOrEqual(500);
    },
  );

  it('refuses the workers’ calls for another organisation: group worker, message sender, report worker, feed writer, dispatcher', async () => {
    const admin = tokens.get('CRM_ADMIN');
    await refused('group-worker', async () => {
      const response = await api(`/groups/${orgId()}`, {
        method: 'POST',
        token: admin,
        json: { channelId: stack.demo!.channels.eligible, subject: 'Never made' },
      });
      expect(response.status).toBe(202);
    });
    await refused('message-sender', async () => {
      const response = await api('/messaging/send-message', {
        method: 'POST',
        token: admin,
        json: { chatId, text: 'held' },
      });
      expect(response.status).toBe(202);
    });
    await refused('report-worker', async () => {
      const response = await api(`/reports/${orgId()}`, {
        method: 'POST',
        token: admin,
        json: { reportType: 'TICKET' },
      });
      expect(response.status).toBe(202);
    });
    await refused('feed-writer', async () => {
      const response = await api(`/reports/${orgId()}`, {
        method: 'POST',
        token: admin,
        json: { reportType: 'CONTACT' },
      });
      expect(response.status).toBe(202);
    });
    await refused('webhook-dispatcher', async () => {
      const response = await api(`/reports/${orgId()}`, { method: 'POST', token: admin, json: { reportType: 'GOAL' } });
      expect(response.status).toBe(202);
    });
    // apply-network-notifications is not in this table: it hands its use case no organisation id. Each change's
    // organisation comes from Meta's ids (the channel by number, the group and message links), read keys-first with its
    // own role and then with that organisation's credentials; a job's organisation only chooses those credentials.
  }, 300_000);

  it('refuses the sweepers’ calls for another organisation: the group, report, webhook and schedule sweepers act on each due item with its organisation’s credentials; the slow receivers’ dispatcher on its attempts', async () => {
    const admin = tokens.get('CRM_ADMIN');
    // The worker refused too, so that the request (the report) stays open in the sweeper's due list.
    await refused('group-sweeper', async () => {
      const response = await api(`/groups/${orgId()}`, {
        method: 'POST',
        token: admin,
        json: { channelId: stack.demo!.channels.eligible, subject: 'Swept' },
      });
      expect(response.status).toBe(202);
    }, ['group-worker']);
    await refused('report-sweeper', async () => {
      const response = await api(`/reports/${orgId()}`, {
        method: 'POST',
        token: admin,
        json: { reportType: 'BOOKING' },
      });
      expect(response.status).toBe(202);
    }, ['report-worker']);
    await refused('webhook-sweeper', dueDelivery);
    await refused('slow-receiver-dispatcher', async () => slowAttempt());
    // A schedule whose occurrence falls due at the next minute (20 s ahead at least): the sweeper finds it in its due
    // list and requests its report for the other organisation.
    const at = new Date(Math.ceil((Date.now() + 20_000) / 60_000) * 60_000).toISOString().slice(11, 16);
    await refused(
      'report-schedule-sweeper',
      async () => {
        const response = await api(`/report-schedules/${orgId()}`, {
          method: 'POST',
          token: admin,
          json: { reportType: 'SURVEY_RESPONSES', schedule: { every: 'day', at, timezone: 'UTC' } },
        });
        expect(response.status).toBe(201);
      },
      [],
      120_000,
    );
  }, 240_000);

  it('left the other organisation untouched, and no function was denied with its own role', async () => {
    expect(await itemsOf(foreign)).toEqual(foreignItems);
    expect(deniedOwn()).toEqual([]);
  });
});
