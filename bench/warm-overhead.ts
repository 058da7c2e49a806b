import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { lambdaContext } from '#infra/local/lambda';
import { signAccessToken } from '#shared/auth/access-token';
import { newKeySet } from '#shared/auth/key-set';
import { accessStatus } from '#shared/config/access';
import { groupRequestStore, identityStore, limits } from '#shared/config/dynamodb';
import { config, resetConfig } from '#shared/config/env';
import { provide, resetDeps } from '#shared/config/instances';
import { jobQueue } from '#shared/config/sqs';
import { AccessStatusCache } from '#shared/domain/auth/access-status';
import { createGroup } from '#shared/domain/groups/create-group';
import { getCreationStatus } from '#shared/domain/groups/get-creation-status';
import type { GroupRequest } from '#shared/domain/groups/group-request';
import type { Channel } from '#shared/domain/orgs/model';
import { systemClock } from '#shared/ports/clock';
import { ulidIds } from '#shared/ports/ids';
import { percentile } from './stats.ts';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<{ statusCode?: number }>;

export interface Overhead {
  calls: number;
  handler: { p50: number; p99: number };
  bare: { p50: number; p99: number };
  /** Handler minus bare use case, ms. */
  added: { p50: number; p99: number };
}

const ORG = '3f2b8c1e-5d4a-4b7e-9c6f-0a1b2c3d4e5f';
const channel: Channel = {
  channelId: 'ch_bench',
  orgId: ORG,
  name: 'Bench',
  type: 'MESSAGING_OFFICIAL',
  phoneNumber: '+4915100000001',
  officialBusinessAccount: true,
  groupsEligible: true,
  phoneNumberId: '100000000000001',
  accessToken: 'token',
  createdAt: '2026-01-01T00:00:00.000Z',
};

/**
 * P2: the create-group and poll handlers (middy, Powertools context, token verification, validation, the use case,
 * problem mapping, response) invoked in this process with every I/O port replaced by an in-memory fake, against the
 * bare use case over the same fakes. Calls alternate handler / bare, after a warm-up, so both see the same JIT and
 * GC state. Clients reuse a token for its hour, so the first two runs reuse one; the third signs a new token for
 * every call, so every call checks an ES256 signature.
 */
export async function warmOverheadBenchmark(calls = 10_000) {
  const dir = await mkdtemp(join(tmpdir(), 'wpcrm-p2-'));
  const keysFile = join(dir, 'jwt-keys.json');
  const keys = await newKeySet();
  await writeFile(keysFile, JSON.stringify(keys));
  const previous = process.env.JWT_KEYS_FILE;
  process.env.JWT_KEYS_FILE = keysFile;
  resetConfig();
  resetDeps();
  try {
    const requests = new Map<string, GroupRequest>();
    const fakes = {
      identity: { getChannel: async () => channel },
      groups: {
        create: async (request: GroupRequest) => void requests.set(request.requestId, request),
        get: async (_orgId: string, requestId: string) => requests.get(requestId),
      },
      limits: { take: async () => ({ allowed: true, retryAfterSeconds: 0 }) },
      queue: { send: async () => undefined, retryAfter: async () => undefined },
    };
    provide(identityStore, fakes.identity as never);
    provide(groupRequestStore, fakes.groups as never);
    provide(limits, fakes.limits as never);
    provide(jobQueue, fakes.queue as never);
    // The credential and organisation status a token check reads, as a warm function holds them (cached).
    const credential = {
      clientId: 'cli_bench',
      orgId: ORG,
      roles: ['CRM_ADMIN' as const],
      secretHash: '',
      createdAt: '',
    };
    provide(
      accessStatus,
      new AccessStatusCache(
        {
          getCredential: async () => credential,
          getOrgStatus: async () => 'active' as const,
          getOrgRecord: async () => ({}),
        },
        30_000,
      ),
    );
    const bareDeps = {
      config: config(),
      clock: systemClock,
      ids: ulidIds(),
      identity: fakes.identity,
      groups: fakes.groups,
      limits: fakes.limits,
      queue: fakes.queue,
    } as unknown as Parameters<typeof createGroup>[0];

    const sign = () =>
      signAccessToken(
        { signingKey: async () => ({ kid: keys.activeKid, privateJwk: keys.keys[0]! }) } as never,
        config().jwt,
        { clientId: 'cli_bench', orgId: ORG, roles: ['CRM_ADMIN'] },
        new Date(),
      );
    const token = await sign();
    const createHandler = (await import('#functions/create-group/handler')).handler as unknown as Handler;
    const pollHandler = (await import('#functions/get-group-status/handler')).handler as unknown as Handler;
    const body = JSON.stringify({ channelId: channel.channelId, subject: 'Launch crew' });
    const input = { orgId: ORG, channelId: channel.channelId, subject: 'Launch crew', requireJoinApproval: true };
    const created = await createGroup(bareDeps, input);

    const createEvent = (bearer = token) =>
      apiEvent('POST', `/groups/${ORG}`, { orgId: ORG }, bearer, body, 'POST /api/wp-crm/groups/{orgId}');
    const pollEvent = () =>
      apiEvent(
        'GET',
        `/groups/${ORG}/creation-status/${created.requestId}`,
        { orgId: ORG, requestId: created.requestId },
        token,
        undefined,
        'GET /api/wp-crm/groups/{orgId}/creation-status/{requestId}',
      );
    const context = lambdaContext('bench', 10_000);

    const create = await compare(
      calls,
      async () => expectStatus(await createHandler(createEvent(), context), 202),
      () => createGroup(bareDeps, input),
    );
    const poll = await compare(
      calls,
      async () => expectStatus(await pollHandler(pollEvent(), context), 200),
      () => getCreationStatus(bareDeps, { orgId: ORG, requestId: created.requestId }),
    );
    // Every call with a token the function has not seen: the ES256 signature is checked each time.
    const fresh = await Promise.all(Array.from({ length: calls + Math.max(1, Math.min(2_000, calls / 5)) }, sign));
    let next = 0;
    const createNewToken = await compare(
      calls,
      async () => expectStatus(await createHandler(createEvent(fresh[next++]), context), 202),
      () => createGroup(bareDeps, input),
    );
    return { create, poll, createNewToken };
  } finally {
    if (previous === undefined) delete process.env.JWT_KEYS_FILE;
    else process.env.JWT_KEYS_FILE = previous;
    resetConfig();
    resetDeps();
    await rm(dir, { recursive: true, force: true });
  }
}

function expectStatus(result: { statusCode?: number }, status: number) {
  if (result.statusCode !== status) throw new Error(`expected ${status}, got ${JSON.stringify(result)}`);
}

async function compare(calls: number, handler: () => Promise<unknown>, bare: () => Promise<unknown>) {
  const warmUp = Math.max(1, Math.min(2_000, calls / 5));
  for (let index = 0; index < warmUp; index++) {
    await handler();
    await bare();
  }
  const handlerMs: number[] = [];
  const bareMs: number[] = [];
  for (let index = 0; index < calls; index++) {
    let started = performance.now();
    await handler();
    handlerMs.push(performance.now() - started);
    started = performance.now();
    await bare();
    bareMs.push(performance.now() - started);
  }
  const stats = (samples: number[]) => ({ p50: percentile(samples, 50), p99: percentile(samples, 99) });
  const handlerStats = stats(handlerMs);
  const bareStats = stats(bareMs);
  return {
    calls,
    handler: handlerStats,
    bare: bareStats,
    added: { p50: handlerStats.p50 - bareStats.p50, p99: handlerStats.p99 - bareStats.p99 },
  } satisfies Overhead;
}

function apiEvent(
  method: string,
  path: string,
  pathParameters: Record<string, string>,
  token: string,
  body: string | undefined,
  routeKey: string,
): APIGatewayProxyEventV2 {
  const now = Date.now();
  return {
    version: '2.0',
    routeKey,
    rawPath: `/api/wp-crm${path}`,
    rawQueryString: '',
    headers: {
      authorization: `Bearer ${token}`,
      host: 'api.example.com',
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    pathParameters,
    requestContext: {
      accountId: '000000000000',
      apiId: 'bench',
      domainName: 'api.example.com',
      domainPrefix: 'api',
      http: { method, path: `/api/wp-crm${path}`, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bench' },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    body,
    isBase64Encoded: false,
  };
}
