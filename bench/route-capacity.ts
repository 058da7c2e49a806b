import { runningFunction } from '#infra/local/lambda';
import { startLocalStack } from '#infra/local/stack';
import { RateAllowance } from '#shared/adapters/dynamodb/rate-allowance';
import { stackEnv } from '#test/support/stack-harness';
import { CapacityMeter } from './capacity-meter.ts';
import { sumCapacity } from './cost.ts';

/** One route class's DynamoDB capacity per request, in its API function (middleware included). */
export interface RouteCapacity {
  route: string;
  fn: string;
  requests: number;
  readUnits: number;
  writeUnits: number;
}

export interface RouteCapacityResult {
  /** The quota leased in chunks (the service). */
  leased: RouteCapacity[];
  /** The same requests with a write per counted request (the quota before leases: RateAllowance.maxLeaseUnits = 1). */
  perRequest: RouteCapacity[];
}

/**
 * P5 through the whole HTTP stack (issue 29): each route class called `requests` times in a row through the local
 * stack's HTTP front — authentication, the per-organisation quota, idempotency and the use case — with the capacity
 * meter counting every DynamoDB call the route's function makes (index writes included). Run twice in one process:
 * once as the service runs, once with the quota's lease at one unit (a write per request, the cost before).
 * Quotas are set high enough never to refuse; the default limit's lease (ORG_REQUEST_RATE_LIMIT 1,200/60 s) is the
 * same chunk as here.
 */
export async function routeCapacityBenchmark(requests: number): Promise<RouteCapacityResult> {
  const perRequest = await measure(requests, 1);
  const leased = await measure(requests, undefined);
  return { leased, perRequest };
}

async function measure(requests: number, leaseUnits: number | undefined): Promise<RouteCapacity[]> {
  const original = RateAllowance.maxLeaseUnits;
  if (leaseUnits !== undefined) RateAllowance.maxLeaseUnits = leaseUnits;
  const stack = await startLocalStack({
    env: stackEnv({
      GROUP_CREATE_RATE_LIMIT: '1000000/60',
      MESSAGE_SEND_RATE_LIMIT: '1000000/60',
      ORG_REQUEST_RATE_LIMIT: '1000000/60',
      NETWORK_CALL_RATE_LIMIT: '1000000/60',
      WPCRM_SWEEP_INTERVAL_MS: '600000',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
    }),
  });
  try {
    stack.simulator!.options.webhookDelayMs = 0;
    const demo = stack.demo!;
    const { accessToken } = (await (
      await fetch(`${stack.apiUrl}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(demo.credentials.CRM_ADMIN),
      })
    ).json()) as { accessToken: string };
    const call = async (path: string, init: { method?: string; json?: unknown } = {}) => {
      const response = await fetch(`${stack.apiUrl}${path}`, {
        method: init.method ?? 'GET',
        headers: {
          authorization: `Bearer ${accessToken}`,
          ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: init.json === undefined ? undefined : JSON.stringify(init.json),
      });
      const body = (await response.json()) as Record<string, unknown>;
      if (response.status >= 300) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
      return body;
    };
    const create = () =>
      call(`/groups/${demo.orgId}`, { method: 'POST', json: { channelId: demo.channels.eligible, subject: 'P5' } });
    // A created group to read, list and message.
    const { requestId } = (await create()) as { requestId: string };
    let chatId: string | undefined;
    for (let attempt = 0; attempt < 100 && !chatId; attempt++) {
      const status = await call(`/groups/${demo.orgId}/creation-status/${requestId}`);
      chatId = status.status === 'created' ? (status.chatId as string) : undefined;
      if (!chatId) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (!chatId) throw new Error('the group was not created');
    const classes: { route: string; fn: string; call: () => Promise<unknown> }[] = [
      { route: 'POST /groups/{orgId} (create)', fn: 'create-group', call: create },
      {
        route: 'GET /groups/{orgId}/creation-status/{requestId} (poll)',
        fn: 'get-group-status',
        call: () => call(`/groups/${demo.orgId}/creation-status/${requestId}`),
      },
      { route: 'GET /groups/{orgId}?limit=20 (a list)', fn: 'list-groups', call: () => call(`/groups/${demo.orgId}`) },
      {
        route: 'GET /groups/{orgId}/{chatId}/invite-link (calls Meta)',
        fn: 'get-invite-link',
        call: () => call(`/groups/${demo.orgId}/${chatId}/invite-link`),
      },
      {
        route: 'POST /messaging/send-message',
        fn: 'send-message',
        call: () => call('/messaging/send-message', { method: 'POST', json: { chatId, text: 'P5' } }),
      },
    ];
    // Warm every function once (its first lease, its caches), as a container that has served before.
    for (const { call: once } of classes) await once();
    const results: RouteCapacity[] = [];
    for (const { route, fn, call: once } of classes) {
      const meter = new CapacityMeter(
        {
          region: stack.config.aws.region,
          endpoint: stack.info.endpoints.dynamodb,
          credentials: stack.info.credentials,
        },
        runningFunction,
      ).install();
      try {
        for (let index = 0; index < requests; index++) await once();
      } finally {
        meter.uninstall();
      }
      const used = sumCapacity(meter.operations, (key) => key.startsWith(`${fn}:`));
      results.push({
        route,
        fn,
        requests,
        readUnits: used.readUnits / requests,
        writeUnits: (used.writeUnits + used.indexWriteUnits) / requests,
      });
    }
    return results;
  } finally {
    await stack.close();
    RateAllowance.maxLeaseUnits = original;
  }
}
