import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { scheduleKeys } from '#shared/adapters/dynamodb/keys';
import { documentClient, reportScheduleStore } from '#shared/config/dynamodb';
import { killCliProcesses, wpcrm } from '#test/support/cli';
import { useLocalStack } from '#test/support/local-stack';

const json = <T = Record<string, unknown>>(text: string) => JSON.parse(text) as T;

interface Schedule {
  scheduleId: string;
  status: string;
  nextRunAt: string | null;
}

describe('wpcrm report-schedule (CONTRACT §23) and the erasure of schedules (§17)', () => {
  const api = useLocalStack();
  const run = (...args: string[]) => wpcrm(args, api.stack.dataDir);
  const ok = async <T = Record<string, unknown>>(...args: string[]) => {
    const result = await run(...args);
    expect(result.status, result.stderr).toBe(0);
    return json<T>(result.stdout);
  };

  afterAll(() => killCliProcesses());

  async function orgWithSchedules(count: number) {
    const { orgId, token } = await api.newOrg('Scheduled');
    const schedules: Schedule[] = [];
    for (let index = 0; index < count; index++) {
      const response = await api.call(`/report-schedules/${orgId}`, {
        method: 'POST',
        token,
        json: { reportType: 'CHAT', schedule: { every: 'day', at: `0${index}:00`, timezone: 'Europe/Berlin' } },
      });
      expect(response.status).toBe(201);
      schedules.push((await response.json()) as Schedule);
    }
    return { orgId, schedules };
  }

  it('lists, shows, pauses, resumes and deletes an organisation’s schedules', async () => {
    const { orgId, schedules } = await orgWithSchedules(2);
    const [first, second] = schedules as [Schedule, Schedule];

    const listed = await ok<{ schedules: Schedule[] }>('report-schedule', 'list', '--org', orgId);
    expect(listed.schedules.map((schedule) => schedule.scheduleId).sort()).toEqual(
      [first.scheduleId, second.scheduleId].sort(),
    );
    expect(await ok('report-schedule', 'show', '--org', orgId, '--schedule', first.scheduleId)).toEqual(first);

    const paused = await ok<Schedule>('report-schedule', 'pause', '--org', orgId, '--schedule', first.scheduleId);
    expect(paused).toMatchObject({ scheduleId: first.scheduleId, status: 'paused', nextRunAt: null });
    const resumed = await ok<Schedule>('report-schedule', 'resume', '--org', orgId, '--schedule', first.scheduleId);
    expect(resumed).toMatchObject({ status: 'active', nextRunAt: first.nextRunAt });

    expect(await ok('report-schedule', 'delete', '--org', orgId, '--schedule', second.scheduleId)).toEqual({
      scheduleId: second.scheduleId,
      deleted: true,
    });
    const missing = await run('report-schedule', 'show', '--org', orgId, '--schedule', second.scheduleId);
    expect(missing.status).toBe(1);
    expect(json<{ error: { code: string } }>(missing.stderr).error.code).toBe('SCHEDULE_NOT_FOUND');
    const bad = await run('report-schedule', 'pause', '--org', orgId, '--schedule', 'nope');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('--schedule');
    // Eight CLI processes, each a cold Node start: minutes on a loaded machine, as the other CLI tests allow.
  }, 180_000);

  it('erases an organisation’s schedules, their slot counter and their due-index entries with it', async () => {
    const { orgId, schedules } = await orgWithSchedules(3);
    const deleted = await ok<{ erased: Record<string, number> }>(
      ...['org', 'delete', '--org', orgId, '--confirm', orgId, '--drain-seconds', '0'],
    );
    expect(deleted.erased).toMatchObject({ reportSchedules: 3 });
    for (const { scheduleId } of schedules) {
      expect(await reportScheduleStore().get(orgId, scheduleId)).toBeUndefined();
    }
    const due = await reportScheduleStore().due(new Date(Date.now() + 3 * 86_400_000), 1000);
    expect(due.filter((schedule) => schedule.organisationId === orgId)).toEqual([]);
    const count = await documentClient().send(
      new GetCommand({
        TableName: api.stack.config.aws.tableName,
        Key: scheduleKeys.count(orgId),
        ConsistentRead: true,
      }),
    );
    expect(count.Item).toBeUndefined();
  }, 180_000);
});
