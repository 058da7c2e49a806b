import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '#test/support/eventually';
import { client, localDeployment } from './target.ts';

/** The next whole UTC minute at least 20 s away, as HH:MM, and its instant. */
function nextMinute() {
  const at = new Date(Math.ceil((Date.now() + 20_000) / 60_000) * 60_000);
  return { at: at.toISOString().slice(11, 16), instant: at.toISOString() };
}

describe('report schedules (CONTRACT §23) on the deployed stack', () => {
  const deployment = localDeployment();
  const { orgId } = deployment;
  let admin: ReturnType<typeof client>;

  beforeAll(async () => {
    admin = client(await deployment.token('CRM_ADMIN'));
  });

  it('creates (once per Idempotency-Key), reads, lists, pauses and deletes a schedule; 404 after; 400 for an unknown zone', async () => {
    const key = `e2e-schedule-${Date.now()}`;
    const create = () =>
      admin.POST('/api/wp-crm/report-schedules/{organisationId}', {
        params: { path: { organisationId: orgId }, header: { 'Idempotency-Key': key } },
        body: {
          reportType: 'CONTACT',
          contactSearch: 'a',
          schedule: { every: 'week', at: '06:00', timezone: 'Europe/Berlin', dayOfWeek: 5 },
          period: 'previous',
        },
      });
    const created = await create();
    expect(created.response.status).toBe(201);
    const schedule = created.data!;
    expect(schedule).toMatchObject({ status: 'active', reportType: 'CONTACT', period: 'previous' });
    // A retry with the Idempotency-Key replays the first answer: one schedule.
    const replayed = await create();
    expect(replayed.response.status).toBe(201);
    expect(replayed.response.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.data).toEqual(schedule);
    const path = { organisationId: orgId, scheduleId: schedule.scheduleId };

    const read = await admin.GET('/api/wp-crm/report-schedules/{organisationId}/{scheduleId}', { params: { path } });
    expect(read.data).toEqual(schedule);
    const listed = await admin.GET('/api/wp-crm/report-schedules/{organisationId}', {
      params: { path: { organisationId: orgId }, query: { limit: 100 } },
    });
    expect(listed.data!.schedules.map((item) => item.scheduleId)).toContain(schedule.scheduleId);
    const paused = await admin.PATCH('/api/wp-crm/report-schedules/{organisationId}/{scheduleId}', {
      params: { path },
      body: { status: 'paused' },
    });
    expect(paused.data).toMatchObject({ status: 'paused', nextRunAt: null });

    const deleted = await admin.DELETE('/api/wp-crm/report-schedules/{organisationId}/{scheduleId}', {
      params: { path },
    });
    expect(deleted.response.status).toBe(204);
    const gone = await admin.GET('/api/wp-crm/report-schedules/{organisationId}/{scheduleId}', { params: { path } });
    expect(gone.response.status).toBe(404);
    expect(gone.error).toMatchObject({ code: 'SCHEDULE_NOT_FOUND' });

    const invalid = await admin.POST('/api/wp-crm/report-schedules/{organisationId}', {
      params: { path: { organisationId: orgId } },
      body: { reportType: 'CONTACT', schedule: { every: 'day', at: '06:00', timezone: 'Mars/Olympus' } },
    });
    expect(invalid.response.status).toBe(400);
  });

  it('runs an occurrence through the deployed sweeper: the report is requested by the schedule and completes', async () => {
    const { at, instant } = nextMinute();
    const created = await admin.POST('/api/wp-crm/report-schedules/{organisationId}', {
      params: { path: { organisationId: orgId } },
      body: { reportType: 'FLOW_RESPONSES', schedule: { every: 'day', at, timezone: 'UTC' } },
    });
    expect(created.response.status).toBe(201);
    const schedule = created.data!;
    expect(schedule.nextRunAt).toBe(instant);
    const path = { organisationId: orgId, scheduleId: schedule.scheduleId };

    const ran = await eventually(
      async () => {
        const { data } = await admin.GET('/api/wp-crm/report-schedules/{organisationId}/{scheduleId}', {
          params: { path },
        });
        expect(data?.lastRunAt).toBe(instant);
        return data!;
      },
      { timeoutMs: 150_000, intervalMs: 2_000 },
    );
    expect(Date.parse(ran.nextRunAt!) - Date.parse(instant)).toBe(86_400_000);
    const report = await eventually(
      async () => {
        const { data } = await admin.GET('/api/wp-crm/reports/{organisationId}/{reportId}', {
          params: { path: { organisationId: orgId, reportId: ran.lastReportId! } },
        });
        expect(data?.status).toBe('COMPLETED');
        return data!;
      },
      { timeoutMs: 60_000 },
    );
    expect(report).toMatchObject({
      reportType: 'FLOW_RESPONSES',
      requestedBy: schedule.scheduleId,
      scheduleId: schedule.scheduleId,
    });
    expect(Date.parse(report.requestedAt)).toBeGreaterThanOrEqual(Date.parse(instant));

    const deleted = await admin.DELETE('/api/wp-crm/report-schedules/{organisationId}/{scheduleId}', {
      params: { path },
    });
    expect(deleted.response.status).toBe(204);
  }, 240_000);
});
