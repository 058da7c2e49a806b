import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoChatStore } from '#shared/adapters/dynamodb/chat-store';
import { DynamoEventOutbox } from '#shared/adapters/dynamodb/event-outbox';
import { DynamoGroupRequestStore } from '#shared/adapters/dynamodb/group-request-store';
import { DynamoIdentityStore } from '#shared/adapters/dynamodb/identity-store';
import { reportKeys } from '#shared/adapters/dynamodb/keys';
import { DynamoLimits } from '#shared/adapters/dynamodb/limits';
import { DynamoReportStore } from '#shared/adapters/dynamodb/report-store';
import { SecretsManagerChannelCredentials } from '#shared/adapters/keys/channel-credentials';
import { loadConfig } from '#shared/config/env';
import { createGroup } from '#shared/domain/groups/create-group';
import { sweepGroupRequests } from '#shared/domain/groups/sweep-group-requests';
import { IDEMPOTENCY_IN_FLIGHT_SECONDS, idempotent } from '#shared/domain/idempotency/idempotent';
import { createChannel, createOrg } from '#shared/domain/orgs/administer';
import { requestReport } from '#shared/domain/reports/request-report';
import { sweepReports } from '#shared/domain/reports/sweep-reports';
import { DomainError } from '#shared/errors';
import { ulidIds } from '#shared/ports/ids';
import { useDynamo } from '#test/support/dynamo';
import { FakeNetwork } from '#test/support/fake-network';

const table = useDynamo();

/** The use cases over the real table (dynalite), with a clock the test moves and a queue it can break. */
function harness() {
  const time = { now: new Date('2026-11-23T10:00:00.000Z') };
  const queued: unknown[] = [];
  const queue = {
    broken: false,
    send: async (_: string, body: unknown) => {
      if (queue.broken) throw new Error('SQS SendMessage: ServiceUnavailable');
      queued.push(body);
    },
    retryAfter: async () => undefined,
  };
  const access = { workStatus: async () => 'active' as const };
  const deps = {
    access,
    config: loadConfig({}),
    clock: { now: () => time.now },
    ids: ulidIds(),
    identity: new DynamoIdentityStore(table.db, table.tableName),
    groups: new DynamoGroupRequestStore(table.db, table.tableName),
    outbox: new DynamoEventOutbox(table.db, table.tableName),
    reports: new DynamoReportStore(table.db, table.tableName),
    limits: new DynamoLimits(table.db, table.tableName),
    events: { publish: async () => undefined },
    queue,
    chats: new DynamoChatStore(table.db, table.tableName),
    network: new FakeNetwork(() => time.now),
    channelCredentials: new SecretsManagerChannelCredentials(() => {
      throw new Error('no secrets in tests');
    }, access),
    files: { upload: async () => ({ sizeBytes: 0 }), downloadUrl: async () => '', delete: async () => undefined },
  };
  const advance = (ms: number) => {
    time.now = new Date(time.now.getTime() + ms);
  };
  return { deps, queue, queued, time, advance };
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    (error: unknown) => (error instanceof DomainError ? error.code : String(error)),
  );

describe('the report window on DynamoDB (E-3)', () => {
  it('refuses at t0+299.999 s and accepts at t0+300 s, deciding from the stored time, not the TTL', async () => {
    const h = harness();
    const orgId = crypto.randomUUID();
    const request = () =>
      codeOf(requestReport(h.deps, { orgId, requestedBy: 'cli_1', reportType: 'GOAL', filters: {} }));
    const first = await requestReport(h.deps, { orgId, requestedBy: 'cli_1', reportType: 'GOAL', filters: {} });
    await h.deps.reports.settleWindow(orgId, 'GOAL', first.reportId);
    // DynamoDB deletes expired items "within a few days", dynalite never: an expired ttl must not decide anything.
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: reportKeys.window(orgId, 'GOAL'),
        UpdateExpression: 'SET #ttl = :past',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':past': Math.floor(h.time.now.getTime() / 1000) - 1 },
      }),
    );

    h.advance(1);
    const withExpiredTtl = await request();
    h.advance(299_998);
    const justBefore = await request();
    h.advance(1);
    const atBoundary = await request();

    expect(withExpiredTtl).toBe('REPORT_RATE_LIMITED');
    expect(justBefore).toBe('REPORT_RATE_LIMITED');
    expect(atBoundary).toBe('accepted');
    const { Item } = await table.db.send(
      new GetCommand({ TableName: table.tableName, Key: reportKeys.window(orgId, 'GOAL') }),
    );
    expect(Item?.requestedAt).toBe(h.time.now.toISOString());
  });
});

describe('the idempotency store on DynamoDB, in flight and after (F-6)', () => {
  it('refuses a redelivery while the first call is in flight, runs it once after the marker expired, then replays', async () => {
    const h = harness();
    const orgId = crypto.randomUUID();
    const input = { orgId, key: 'k-timeout', operation: 'createGroup', body: { subject: 'x' }, idPrefix: 'grq' };
    const runs: string[] = [];
    const call = () =>
      idempotent(h.deps, input, async (id) => {
        runs.push(id);
        return { statusCode: 202, body: { requestId: id }, headers: {} };
      });
    // The first invocation claimed the key (PutItem IN_PROGRESS) and then hung until Lambda killed it.
    let hungWith = '';
    void idempotent(h.deps, input, (id) => {
      hungWith = id;
      return new Promise(() => undefined);
    });
    await expect.poll(() => hungWith).not.toBe('');

    h.advance((IDEMPOTENCY_IN_FLIGHT_SECONDS - 1) * 1000);
    const before = await codeOf(call());
    h.advance(1000);
    const after = await call();
    const duplicate = await call();

    expect(before).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(runs).toEqual([hungWith]);
    expect(after).toMatchObject({ replayed: false, response: { statusCode: 202 } });
    expect(duplicate).toEqual({ replayed: true, response: after.response });
  });
});

describe('a request stored but not queued (D-5)', () => {
  it('answers 202 for the group request, keeps it pending, and the sweeper queues it a minute later', async () => {
    const h = harness();
    const { orgId } = await createOrg(h.deps, { name: 'Outage' });
    const { channelId } = await createChannel(h.deps, {
      orgId,
      name: 'WA',
      type: 'MESSAGING_OFFICIAL',
      phoneNumber: '+4915100000001',
      officialBusinessAccount: true,
      phoneNumberId: `555-${orgId}`,
      accessToken: 't',
    });
    h.queue.broken = true;

    const accepted = await createGroup(h.deps, { orgId, channelId, subject: 'Lost?', requireJoinApproval: false });
    h.queue.broken = false;
    const early = await sweepGroupRequests(h.deps);
    h.advance(61_000);
    await sweepGroupRequests(h.deps);

    expect(accepted.status).toBe('pending');
    expect(early.requeued).toBe(0);
    expect(await h.deps.groups.get(orgId, accepted.requestId)).toMatchObject({ status: 'pending' });
    expect(h.queued).toContainEqual({ orgId, requestId: accepted.requestId });
  });

  it('answers 202 for the report, keeps it PENDING, and the sweeper queues it a minute later', async () => {
    const h = harness();
    const orgId = crypto.randomUUID();
    h.queue.broken = true;

    const accepted = await requestReport(h.deps, { orgId, requestedBy: 'cli_1', reportType: 'CHAT', filters: {} });
    h.queue.broken = false;
    h.advance(61_000);
    await sweepReports(h.deps);

    expect(accepted.status).toBe('PENDING');
    expect(h.queued).toContainEqual({ orgId, reportId: accepted.reportId });
  });
});
