import { describe, expect, it } from 'vitest';
import { DynamoGroupRequestStore } from '#shared/adapters/dynamodb/group-request-store';
import { DynamoIdentityStore } from '#shared/adapters/dynamodb/identity-store';
import { DynamoLimits } from '#shared/adapters/dynamodb/limits';
import { DynamoReportScheduleStore } from '#shared/adapters/dynamodb/report-schedule-store';
import { DynamoReportStore } from '#shared/adapters/dynamodb/report-store';
import { loadConfig } from '#shared/config/env';
import { createGroup } from '#shared/domain/groups/create-group';
import { idempotent } from '#shared/domain/idempotency/idempotent';
import { createChannel, createOrg } from '#shared/domain/orgs/administer';
import { createReportSchedule } from '#shared/domain/reports/report-schedules';
import { requestReport } from '#shared/domain/reports/request-report';
import { ulidIds } from '#shared/ports/ids';
import { useDynamo } from '#test/support/dynamo';

const table = useDynamo();

/** The answer of a call is lost after the request was stored: the database fails when the key is completed. */
function harness() {
  const time = { now: new Date('2026-11-23T10:00:00.000Z') };
  let failCompletions = 1;
  const flakyLimits = new (class extends DynamoLimits {
    override async complete(...args: Parameters<DynamoLimits['complete']>) {
      if (failCompletions-- > 0) throw new Error('ECONNRESET: the database went away');
      return super.complete(...args);
    }
  })(table.db, table.tableName);
  const queued: unknown[] = [];
  const deps = {
    config: loadConfig({}),
    clock: { now: () => time.now },
    ids: ulidIds(),
    identity: new DynamoIdentityStore(table.db, table.tableName),
    groups: new DynamoGroupRequestStore(table.db, table.tableName),
    reports: new DynamoReportStore(table.db, table.tableName),
    schedules: new DynamoReportScheduleStore(table.db, table.tableName),
    limits: flakyLimits,
    queue: { send: async (_: string, body: unknown) => void queued.push(body), retryAfter: async () => undefined },
  };
  return { deps, queued, advance: (seconds: number) => (time.now = new Date(time.now.getTime() + seconds * 1000)) };
}

describe('an Idempotency-Key after a call that stored its request but lost its answer (K-4)', () => {
  it('gives the retry the same group request, not a second one', async () => {
    const h = harness();
    const { orgId } = await createOrg(h.deps, { name: 'Org' });
    const { channelId } = await createChannel(h.deps, {
      orgId,
      name: 'WA',
      type: 'MESSAGING_OFFICIAL',
      phoneNumber: '+4915100000001',
      officialBusinessAccount: true,
      phoneNumberId: `555-${orgId}`,
      accessToken: 't',
    });
    const body = { channelId, subject: 'Team', requireJoinApproval: true };
    const call = () =>
      idempotent(h.deps, { orgId, key: 'k-1', operation: 'createGroup', body, idPrefix: 'grq' }, async (id) => ({
        statusCode: 202,
        body: await createGroup(h.deps, { orgId, requestId: id, ...body }),
        headers: {},
      }));

    await expect(call()).rejects.toThrow(/ECONNRESET/);
    h.advance(61);
    const retry = await call();

    const first = h.queued[0] as { requestId: string };
    expect((retry.response.body as { requestId: string }).requestId).toBe(first.requestId);
    expect(await h.deps.groups.get(orgId, first.requestId)).toMatchObject({ status: 'pending' });
  });

  it('gives the retry the same report, instead of a 409 against its own window', async () => {
    const h = harness();
    const orgId = crypto.randomUUID();
    const body = { reportType: 'GOAL' };
    const call = () =>
      idempotent(h.deps, { orgId, key: 'k-2', operation: 'requestReport', body, idPrefix: 'rpt' }, async (id) => ({
        statusCode: 202,
        body: await requestReport(h.deps, {
          orgId,
          reportId: id,
          requestedBy: 'cli_1',
          reportType: 'GOAL',
          filters: {},
        }),
        headers: {},
      }));

    await expect(call()).rejects.toThrow(/ECONNRESET/);
    h.advance(61);
    const retry = await call();

    const first = h.queued[0] as { reportId: string };
    expect(retry.response.statusCode).toBe(202);
    expect((retry.response.body as { reportId: string }).reportId).toBe(first.reportId);
  });

  it('gives the retry the same report schedule, in its one slot, instead of a second or a 422', async () => {
    const h = harness();
    const orgId = crypto.randomUUID();
    const deps = { ...h.deps, config: { ...h.deps.config, reportSchedules: { limit: 1 } } };
    const body = { reportType: 'CHAT', schedule: { every: 'day' as const, at: '08:00', timezone: 'UTC' } };
    const call = () =>
      idempotent(deps, { orgId, key: 'k-3', operation: 'createReportSchedule', body, idPrefix: 'rsc' }, async (id) => ({
        statusCode: 201,
        body: await createReportSchedule(deps, {
          orgId,
          scheduleId: id,
          createdBy: 'cli_1',
          reportType: 'CHAT',
          filters: {},
          schedule: body.schedule,
        }),
        headers: {},
      }));

    await expect(call()).rejects.toThrow(/ECONNRESET/);
    h.advance(61);
    const retry = await call();

    expect(retry.response.statusCode).toBe(201);
    const { scheduleId } = retry.response.body as { scheduleId: string };
    const page = await deps.schedules.list(orgId, { limit: 10 });
    expect(page.items.map((schedule) => schedule.scheduleId)).toEqual([scheduleId]);
  });
});
