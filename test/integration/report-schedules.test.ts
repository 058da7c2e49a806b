import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { deps } from '#shared/config/deps';
import { reportScheduleSweeperDeps } from '#shared/config/report-schedules';
import type { Report } from '#shared/domain/reports/report';
import { requestReport } from '#shared/domain/reports/request-report';
import { type RunScheduleDeps, runReportSchedules } from '#shared/domain/reports/run-schedules';
import { occurrenceReportId } from '#shared/domain/reports/schedule';
import { eventually, useLocalStack } from '#test/support/local-stack';
import { useReceiver } from '#test/support/receiver';

interface ScheduleView {
  scheduleId: string;
  status: string;
  nextRunAt: string | null;
  lastRunAt?: string;
  lastReportId?: string;
  filters: Record<string, unknown>;
  [key: string]: unknown;
}

const LIMIT = 6;

/** A UTC time of day twelve hours from now: no occurrence falls due on the real clock while the file runs. */
const farFromNow = () => `${String((new Date().getUTCHours() + 12) % 24).padStart(2, '0')}:15`;

describe('report schedules (CONTRACT §23)', () => {
  const api = useLocalStack({ REPORT_SCHEDULE_LIMIT: String(LIMIT) });
  const receiver = useReceiver();

  const admin = () => api.token('CRM_ADMIN');

  async function create(body: Record<string, unknown>, orgId = api.orgId, token?: string) {
    return api.call(`/report-schedules/${orgId}`, {
      method: 'POST',
      token: token ?? (await admin()),
      json: body,
    });
  }

  async function created(body: Record<string, unknown>): Promise<ScheduleView> {
    const response = await create(body);
    expect(response.status, await response.clone().text()).toBe(201);
    return (await response.json()) as ScheduleView;
  }

  async function read(scheduleId: string): Promise<ScheduleView> {
    const response = await api.call(`/report-schedules/${api.orgId}/${scheduleId}`, { token: await admin() });
    expect(response.status).toBe(200);
    return (await response.json()) as ScheduleView;
  }

  async function patch(scheduleId: string, body: Record<string, unknown>) {
    return api.call(`/report-schedules/${api.orgId}/${scheduleId}`, {
      method: 'PATCH',
      token: await admin(),
      json: body,
    });
  }

  async function remove(scheduleId: string) {
    return api.call(`/report-schedules/${api.orgId}/${scheduleId}`, { method: 'DELETE', token: await admin() });
  }

  /** The sweeper's use case over the stack's own adapters, on a clock the test moves. */
  function sweeper() {
    const time = { now: new Date() };
    const sweeperDeps: RunScheduleDeps = { ...reportScheduleSweeperDeps(), clock: { now: () => time.now } };
    return { time, deps: sweeperDeps, run: () => runReportSchedules(sweeperDeps) };
  }

  /** The reports a schedule requested, found by the ids of its occurrences. */
  async function reportOf(scheduleId: string, occurrence: string): Promise<Report | undefined> {
    return deps().reports.get(api.orgId, occurrenceReportId(scheduleId, new Date(occurrence)));
  }

  async function settled(report: Report | undefined) {
    await eventually(
      async () => {
        const current = await deps().reports.get(report!.organisationId, report!.reportId);
        expect(['COMPLETED', 'FAILED']).toContain(current?.status);
      },
      { timeoutMs: 20_000 },
    );
  }

  it('creates, lists (paged), reads, changes and deletes a schedule over HTTP', async () => {
    const owner = await api.token('ACCOUNT_OWNER');
    const response = await create(
      {
        reportType: 'TICKET',
        ticketPriorityLevels: ['HIGH'],
        format: 'xlsx',
        schedule: { every: 'week', at: '07:30', timezone: 'Europe/Berlin', dayOfWeek: 1 },
        period: 'previous',
      },
      api.orgId,
      owner,
    );
    expect(response.status).toBe(201);
    const schedule = (await response.json()) as ScheduleView;
    expect(schedule).toMatchObject({
      scheduleId: expect.stringMatching(/^rsc_/),
      organisationId: api.orgId,
      reportType: 'TICKET',
      filters: { ticketPriorityLevels: ['HIGH'] },
      format: 'xlsx',
      period: 'previous',
      status: 'active',
    });
    expect(response.headers.get('location')).toBe(`/api/wp-crm/report-schedules/${api.orgId}/${schedule.scheduleId}`);
    // Monday 07:30 in Berlin: 06:30Z in winter, 05:30Z in summer.
    const next = new Date(schedule.nextRunAt!);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(next.getUTCDay()).toBe(1);
    expect(['06:30', '05:30']).toContain(next.toISOString().slice(11, 16));

    const second = await created({
      reportType: 'CONTACT',
      schedule: { every: 'day', at: '23:00', timezone: 'UTC' },
    });
    const firstPage = await api.call(`/report-schedules/${api.orgId}?limit=1`, { token: owner });
    const page1 = (await firstPage.json()) as { schedules: ScheduleView[]; nextCursor: string | null };
    expect(page1.schedules).toHaveLength(1);
    expect(page1.nextCursor).toEqual(expect.any(String));
    const rest = await api.call(
      `/report-schedules/${api.orgId}?limit=100&cursor=${encodeURIComponent(page1.nextCursor!)}`,
      { token: owner },
    );
    const page2 = (await rest.json()) as { schedules: ScheduleView[]; nextCursor: string | null };
    expect(page2.nextCursor).toBeNull();
    const ids = [...page1.schedules, ...page2.schedules].map((item) => item.scheduleId);
    expect(ids).toEqual(expect.arrayContaining([schedule.scheduleId, second.scheduleId]));

    expect(await read(schedule.scheduleId)).toEqual(schedule);

    const paused = await patch(schedule.scheduleId, { status: 'paused' });
    expect(paused.status).toBe(200);
    expect(await paused.json()).toMatchObject({ status: 'paused', nextRunAt: null });
    const resumed = await patch(schedule.scheduleId, {
      status: 'active',
      schedule: { every: 'month', at: '06:00', timezone: 'America/New_York', dayOfMonth: 1 },
      filters: { ticketIsResolved: true },
      period: null,
      compression: 'gzip',
    });
    expect(resumed.status).toBe(200);
    const changed = (await resumed.json()) as ScheduleView;
    expect(changed).toMatchObject({ status: 'active', filters: { ticketIsResolved: true }, compression: 'gzip' });
    expect(changed.period).toBeUndefined();
    expect(new Date(changed.nextRunAt!).getUTCDate()).toBe(1);

    expect((await remove(schedule.scheduleId)).status).toBe(204);
    expect((await remove(second.scheduleId)).status).toBe(204);
    const gone = await api.call(`/report-schedules/${api.orgId}/${schedule.scheduleId}`, { token: owner });
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ code: 'SCHEDULE_NOT_FOUND' });
    expect((await patch(schedule.scheduleId, { status: 'paused' })).status).toBe(404);
    expect((await remove(schedule.scheduleId)).status).toBe(404);
  });

  it('refuses bad schedules with 400 and a pointer, and agents with 403', async () => {
    const daily = { every: 'day', at: '08:00', timezone: 'Europe/Berlin' };
    const cases: [Record<string, unknown>, string][] = [
      [{ reportType: 'CHAT', schedule: { ...daily, timezone: 'Mars/Olympus' } }, '/schedule/timezone'],
      [{ reportType: 'CHAT', schedule: { ...daily, timezone: '+01:00' } }, '/schedule/timezone'],
      [{ reportType: 'CHAT', schedule: { ...daily, dayOfWeek: 1 } }, '/schedule/dayOfWeek'],
      [{ reportType: 'CHAT', schedule: { ...daily, every: 'week' } }, '/schedule/dayOfWeek'],
      [{ reportType: 'CHAT', schedule: { ...daily, every: 'month', dayOfMonth: 29 } }, '/schedule/dayOfMonth'],
      [{ reportType: 'CHAT', schedule: { ...daily, every: 'month' } }, '/schedule/dayOfMonth'],
      [{ reportType: 'CHAT', schedule: { ...daily, at: '24:00' } }, '/schedule/at'],
      [{ reportType: 'CHAT', schedule: { ...daily, every: 'hour' } }, '/schedule/every'],
      [{ reportType: 'CHAT' }, '/schedule'],
      [{ reportType: 'CHAT', ticketSearch: 'x', schedule: daily }, '/ticketSearch'],
      [{ reportType: 'CHAT', schedule: daily, period: 'previous', updatedAfter: '2026-11-01' }, '/updatedAfter'],
      [{ reportType: 'CHAT', schedule: daily, period: 'next' }, '/period'],
      [{ reportType: 'CHAT', schedule: daily, format: 'pdf' }, '/format'],
      [{ reportType: 'CHAT', schedule: daily, compression: 'zip' }, '/compression'],
      [{ reportType: 'NOPE', schedule: daily }, '/reportType'],
    ];
    for (const [body, pointer] of cases) {
      const response = await create(body);
      const problem = (await response.json()) as { code: string; errors: { pointer: string }[] };
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(problem.code).toBe('VALIDATION_FAILED');
      expect(
        problem.errors.map((error) => error.pointer),
        JSON.stringify(body),
      ).toContain(pointer);
    }

    const schedule = await created({ reportType: 'GOAL', schedule: daily });
    const badFilter = await patch(schedule.scheduleId, { filters: { ticketSearch: 'x' } });
    expect(badFilter.status).toBe(400);
    expect(((await badFilter.json()) as { errors: { pointer: string }[] }).errors[0]!.pointer).toBe(
      '/filters/ticketSearch',
    );
    const conflict = await patch(schedule.scheduleId, {
      period: 'previous',
      filters: { goalRecordedAfter: '2026-11-01' },
    });
    expect(conflict.status).toBe(400);
    expect(((await conflict.json()) as { errors: { pointer: string }[] }).errors[0]!.pointer).toBe(
      '/filters/goalRecordedAfter',
    );
    // format and compression are top-level properties, as in the creation; reportType cannot change.
    for (const name of ['format', 'compression', 'reportType']) {
      const misplaced = await patch(schedule.scheduleId, {
        filters: { [name]: name === 'reportType' ? 'GOAL' : 'gzip' },
      });
      expect(misplaced.status, name).toBe(400);
      expect(await misplaced.json()).toMatchObject({
        code: 'VALIDATION_FAILED',
        errors: [{ pointer: `/filters/${name}`, message: expect.stringContaining('is not a filter') }],
      });
    }
    expect(await read(schedule.scheduleId)).toMatchObject({ filters: {} });
    expect((await read(schedule.scheduleId)).format).toBeUndefined();
    expect((await patch(schedule.scheduleId, { status: 'stopped' })).status).toBe(400);
    const agent = await create({ reportType: 'GOAL', schedule: daily }, api.orgId, await api.token('CRM_AGENT'));
    expect(agent.status).toBe(403);
    expect((await remove(schedule.scheduleId)).status).toBe(204);
  });

  it(`holds at most REPORT_SCHEDULE_LIMIT (${LIMIT}) per organisation under concurrent creation: 422 past it`, async () => {
    const { orgId, token } = await api.newOrg('Schedules limit');
    const body = { reportType: 'CHAT', schedule: { every: 'day', at: '08:00', timezone: 'UTC' } };
    const answers = await Promise.all(Array.from({ length: LIMIT + 4 }, () => create(body, orgId, token)));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(LIMIT);
    expect(statuses.filter((status) => status === 422)).toHaveLength(4);
    const refused = answers.find((answer) => answer.status === 422)!;
    expect(await refused.json()).toMatchObject({ code: 'SCHEDULE_LIMIT_REACHED', limit: LIMIT });

    // A deleted schedule frees its slot.
    const one = (await answers.find((answer) => answer.status === 201)!.json()) as ScheduleView;
    const deleted = await api.call(`/report-schedules/${orgId}/${one.scheduleId}`, { method: 'DELETE', token });
    expect(deleted.status).toBe(204);
    expect((await create(body, orgId, token)).status).toBe(201);
    expect((await create(body, orgId, token)).status).toBe(422);

    // Leave nothing due for the sweeps of the other tests (they count what a sweep ran).
    const listed = await api.call(`/report-schedules/${orgId}?limit=100`, { token });
    for (const { scheduleId } of ((await listed.json()) as { schedules: ScheduleView[] }).schedules) {
      await api.call(`/report-schedules/${orgId}/${scheduleId}`, { method: 'DELETE', token });
    }
  });

  it('runs a due occurrence once: two sweeps racing request one report, as the schedule', async () => {
    const schedule = await created({
      reportType: 'CONTACT',
      schedule: { every: 'day', at: farFromNow(), timezone: 'UTC' },
    });
    const occurrence = schedule.nextRunAt!;
    const { time, run } = sweeper();
    time.now = new Date(Date.parse(occurrence) - 1000);
    await run();
    expect(await reportOf(schedule.scheduleId, occurrence)).toBeUndefined();

    time.now = new Date(Date.parse(occurrence) + 20_000);
    const [first, second] = await Promise.all([run(), run()]);
    expect(first.requested + second.requested).toBe(1);
    const report = await reportOf(schedule.scheduleId, occurrence);
    expect(report).toMatchObject({
      reportType: 'CONTACT',
      requestedBy: schedule.scheduleId,
      scheduleId: schedule.scheduleId,
      requestedAt: time.now.toISOString(),
    });
    const after = await read(schedule.scheduleId);
    expect(after).toMatchObject({ lastRunAt: occurrence, lastReportId: report!.reportId });
    expect(Date.parse(after.nextRunAt!) - Date.parse(occurrence)).toBe(86_400_000);

    // Sweeping again at the same time runs nothing more.
    expect((await run()).requested).toBe(0);
    const listed = await api.call(`/reports/${api.orgId}?reportType=CONTACT&limit=100`, { token: await admin() });
    const reports = ((await listed.json()) as { reports: Report[] }).reports;
    expect(reports.filter((item) => item.requestedBy === schedule.scheduleId)).toHaveLength(1);
    await settled(report);
    expect((await remove(schedule.scheduleId)).status).toBe(204);
  });

  it('defers an occurrence inside the 5-minute window, and runs it when the window ends', async () => {
    const schedule = await created({
      reportType: 'TICKET',
      schedule: { every: 'day', at: farFromNow(), timezone: 'UTC' },
    });
    const occurrence = Date.parse(schedule.nextRunAt!);
    const { time, deps: sweeperDeps, run } = sweeper();
    // A caller's TICKET report two minutes before the occurrence holds the window until three minutes after it.
    time.now = new Date(occurrence - 120_000);
    const manual = await requestReport(sweeperDeps, {
      orgId: api.orgId,
      requestedBy: 'cli_manual',
      reportType: 'TICKET',
      filters: {},
    });
    await settled(manual as Report);

    time.now = new Date(occurrence + 10_000);
    expect(await run()).toMatchObject({ requested: 0, waiting: 1 });
    // Waiting, not dropped: the schedule shows the occurrence still due.
    expect((await read(schedule.scheduleId)).nextRunAt).toBe(schedule.nextRunAt);
    // Read again only when the window ends: a sweep before then does not read the schedule at all.
    time.now = new Date(occurrence + 170_000);
    expect(await run()).toMatchObject({ requested: 0, waiting: 0, taken: 0, skipped: 0 });
    expect((await read(schedule.scheduleId)).nextRunAt).toBe(schedule.nextRunAt);

    time.now = new Date(occurrence + 181_000);
    expect(await run()).toMatchObject({ requested: 1 });
    const report = await reportOf(schedule.scheduleId, schedule.nextRunAt!);
    expect(report).toMatchObject({ requestedBy: schedule.scheduleId, requestedAt: time.now.toISOString() });
    const after = await read(schedule.scheduleId);
    expect(after.lastRunAt).toBe(schedule.nextRunAt);
    expect(Date.parse(after.nextRunAt!)).toBe(occurrence + 86_400_000);
    await settled(report);
    expect((await remove(schedule.scheduleId)).status).toBe(204);
  });

  it('runs an occurrence pending when the schedule changes with the settings it fell due with; the change applies from the next', async () => {
    const schedule = await created({
      reportType: 'CALL_LOG',
      callDirection: 'INBOUND',
      schedule: { every: 'day', at: farFromNow(), timezone: 'UTC' },
    });
    const occurrence = Date.parse(schedule.nextRunAt!);
    const { time, deps: sweeperDeps, run } = sweeper();
    // A CALL_LOG report by hand holds the window past the occurrence: the occurrence is claimed and waits.
    time.now = new Date(occurrence - 120_000);
    const manual = await requestReport(sweeperDeps, {
      orgId: api.orgId,
      requestedBy: 'cli_manual',
      reportType: 'CALL_LOG',
      filters: {},
    });
    await settled(manual as Report);
    time.now = new Date(occurrence + 10_000);
    expect(await run()).toMatchObject({ requested: 0, waiting: 1 });

    const changed = await patch(schedule.scheduleId, {
      filters: { callDirection: 'OUTBOUND' },
      format: 'jsonl',
      compression: 'gzip',
      period: 'previous',
    });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({
      filters: { callDirection: 'OUTBOUND' },
      format: 'jsonl',
      compression: 'gzip',
      nextRunAt: schedule.nextRunAt,
    });

    time.now = new Date(occurrence + 181_000);
    expect(await run()).toMatchObject({ requested: 1 });
    const due = await reportOf(schedule.scheduleId, schedule.nextRunAt!);
    expect(due).toMatchObject({ filters: { callDirection: 'INBOUND' }, format: 'text/csv' });
    expect(due!.filters.callInitiatedAfter).toBeUndefined();
    await settled(due);

    // The next occurrence runs with the schedule as changed.
    const next = occurrence + 86_400_000;
    expect(Date.parse((await read(schedule.scheduleId)).nextRunAt!)).toBe(next);
    time.now = new Date(next + 5_000);
    expect(await run()).toMatchObject({ requested: 1 });
    const after = await reportOf(schedule.scheduleId, new Date(next).toISOString());
    expect(after).toMatchObject({
      filters: { callDirection: 'OUTBOUND', callInitiatedAfter: expect.any(String) },
      format: 'application/gzip',
    });
    await settled(after);
    expect((await remove(schedule.scheduleId)).status).toBe(204);
  });

  it('takes an Idempotency-Key on creation: a retry replays the schedule, another body 422, one slot taken', async () => {
    const { orgId, token } = await api.newOrg('Schedules with keys');
    const body = { reportType: 'CHAT', schedule: { every: 'day', at: '08:00', timezone: 'UTC' } };
    const send = (json: Record<string, unknown>, key: string) =>
      api.call(`/report-schedules/${orgId}`, { method: 'POST', token, json, headers: { 'idempotency-key': key } });

    const first = await send(body, 'schedule-1');
    const again = await send(body, 'schedule-1');
    const other = await send({ ...body, format: 'xlsx' }, 'schedule-1');

    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    const [a, b] = [(await first.json()) as ScheduleView, (await again.json()) as ScheduleView];
    expect(b).toEqual(a);
    expect(other.status).toBe(422);
    expect(await other.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    const bad = await send(body, 'x'.repeat(256));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { errors: { pointer: string }[] }).errors[0]!.pointer).toBe(
      '#/header/idempotency-key',
    );

    // Concurrent calls with one key: one schedule; the others replay it or answer 409 IDEMPOTENCY_KEY_IN_USE.
    const burst = await Promise.all(Array.from({ length: 8 }, () => send(body, 'schedule-burst')));
    const statuses = burst.map((response) => response.status);
    expect(
      statuses.every((status) => status === 201 || status === 409),
      JSON.stringify(statuses),
    ).toBe(true);
    for (const refused of burst.filter((response) => response.status === 409)) {
      expect(await refused.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    const made = new Set<string>();
    for (const response of burst.filter((candidate) => candidate.status === 201)) {
      made.add(((await response.json()) as ScheduleView).scheduleId);
    }
    expect(made.size).toBe(1);
    const listed = await api.call(`/report-schedules/${orgId}?limit=100`, { token });
    const schedules = ((await listed.json()) as { schedules: ScheduleView[] }).schedules;
    expect(schedules.map((item) => item.scheduleId).sort()).toEqual([a.scheduleId, ...made].sort());
    for (const { scheduleId } of schedules) {
      await api.call(`/report-schedules/${orgId}/${scheduleId}`, { method: 'DELETE', token });
    }
  });

  it('runs every occurrence missed while the service was down once, oldest first, and survives a crash between claim and request', async () => {
    const schedule = await created({
      reportType: 'GOAL',
      schedule: { every: 'day', at: farFromNow(), timezone: 'Europe/Berlin' },
      period: 'previous',
    });
    const first = Date.parse(schedule.nextRunAt!);
    const occurrences = [0, 1, 2].map((day) => new Date(first + day * 86_400_000).toISOString());
    const { time, deps: sweeperDeps, run } = sweeper();
    // Down for two days and a bit: three occurrences are due when it comes back.
    time.now = new Date(first + 2 * 86_400_000 + 60_000);

    // The first sweep claims the oldest occurrence and dies storing its report (a crash between claim and request).
    const { reports } = sweeperDeps;
    let failures = 1;
    const crashing: RunScheduleDeps = {
      ...sweeperDeps,
      reports: Object.assign(Object.create(reports), {
        create: async (report: Report) => {
          if (failures-- > 0) throw new Error('the sweeper died here');
          return reports.create(report);
        },
      }),
    };
    await runReportSchedules(crashing);
    expect(await reportOf(schedule.scheduleId, occurrences[0]!)).toBeUndefined();
    // The occurrence stays due (claimed, pending), not dropped; the failure's backoff keeps it out of the sweeps for
    // 5 minutes (issue 35: a failing schedule is not read at every sweep ahead of the others).
    expect((await read(schedule.scheduleId)).nextRunAt).toBe(occurrences[0]);
    expect(await run()).toEqual({ requested: 0, waiting: 0, taken: 0, skipped: 0 });
    time.now = new Date(time.now.getTime() + 301_000);

    const requested: Report[] = [];
    for (const occurrence of occurrences) {
      // Two sweeps race at each step; the occurrence's report is requested once.
      const outcomes = await Promise.all([run(), run()]);
      expect(
        outcomes.reduce((sum, outcome) => sum + outcome.requested, 0),
        `${occurrence}: ${JSON.stringify(outcomes)}`,
      ).toBe(1);
      const report = await reportOf(schedule.scheduleId, occurrence);
      expect(report?.requestedBy).toBe(schedule.scheduleId);
      requested.push(report!);
      await settled(report);
      // The next one waits for the GOAL window of this one.
      expect((await run()).requested).toBe(0);
      time.now = new Date(time.now.getTime() + 301_000);
    }
    expect((await run()).requested).toBe(0);
    // Each report covers the local day before its occurrence, with Berlin's offset.
    const days = requested.map((report) => report.filters.goalRecordedBefore);
    expect(new Set(days).size).toBe(3);
    for (const report of requested) {
      expect(report.filters.goalRecordedAfter).toMatch(/T23:59:59\.999\+0[12]:00$/);
      expect(report.filters.goalRecordedBefore).toMatch(/T00:00:00\+0[12]:00$/);
    }
    expect(Date.parse((await read(schedule.scheduleId)).nextRunAt!)).toBe(first + 3 * 86_400_000);
    expect((await remove(schedule.scheduleId)).status).toBe(204);
  });

  it("does not let one organisation's waiting occurrences fill the sweeps ahead of another's (CONTRACT §18)", async () => {
    const a = await api.newOrg('Schedules all at once');
    const b = await api.newOrg('Schedules of a neighbour');
    const at = farFromNow();
    const make = async (org: { orgId: string; token: string }, body: Record<string, unknown>) => {
      const response = await create(body, org.orgId, org.token);
      expect(response.status).toBe(201);
      return (await response.json()) as ScheduleView;
    };
    // A: as many CHAT schedules as it may hold, all due at the same minute; one CHAT report per 5 minutes can run.
    const aSchedules = await Promise.all(
      Array.from({ length: LIMIT }, () =>
        make(a, { reportType: 'CHAT', schedule: { every: 'day', at, timezone: 'UTC' } }),
      ),
    );
    const due = Date.parse(aSchedules[0]!.nextRunAt!);
    // B: one schedule due a minute after A's, so every one of A's sorts ahead of it in the due index.
    const [hour, minute] = at.split(':').map(Number) as [number, number];
    const bAt = `${String(hour).padStart(2, '0')}:${String(minute + 1).padStart(2, '0')}`;
    const bSchedule = await make(b, { reportType: 'CONTACT', schedule: { every: 'day', at: bAt, timezone: 'UTC' } });
    expect(Date.parse(bSchedule.nextRunAt!)).toBe(due + 60_000);

    // Sweeps read two schedules each (a stand-in for SCHEDULES_PER_SWEEP under a backlog), one a minute.
    const { time, deps: sweeperDeps } = sweeper();
    const sweep = () => runReportSchedules(sweeperDeps, { perSweep: 2 });
    const outcomes = [];
    time.now = new Date(due + 70_000);
    for (let minute = 0; minute < 4; minute++) {
      outcomes.push(await sweep());
      time.now = new Date(time.now.getTime() + 60_000);
    }
    // A's first occurrence ran, the other five wait for its window, each read once; then B's ran.
    expect(outcomes).toEqual([
      { requested: 1, waiting: 1, taken: 0, skipped: 0 },
      { requested: 0, waiting: 2, taken: 0, skipped: 0 },
      { requested: 0, waiting: 2, taken: 0, skipped: 0 },
      { requested: 1, waiting: 0, taken: 0, skipped: 0 },
    ]);
    const bReport = await deps().reports.get(b.orgId, occurrenceReportId(bSchedule.scheduleId, new Date(due + 60_000)));
    expect(bReport).toMatchObject({ reportType: 'CONTACT', scheduleId: bSchedule.scheduleId });
    // A's waiting occurrences are kept, not dropped, and are read again once the window ends: the next one runs.
    const views = await Promise.all(
      aSchedules.map(async ({ scheduleId }) => {
        const answer = await api.call(`/report-schedules/${a.orgId}/${scheduleId}`, { token: a.token });
        return (await answer.json()) as ScheduleView;
      }),
    );
    expect(views.filter((view) => view.lastRunAt === aSchedules[0]!.nextRunAt)).toHaveLength(1);
    expect(views.filter((view) => view.nextRunAt === aSchedules[0]!.nextRunAt)).toHaveLength(LIMIT - 1);
    const aFirst = views.find((view) => view.lastRunAt === aSchedules[0]!.nextRunAt)!;
    await settled(await deps().reports.get(a.orgId, aFirst.lastReportId!));
    time.now = new Date(due + 70_000 + 301_000);
    expect(await sweep()).toMatchObject({ requested: 1, waiting: 1 });

    await settled(bReport);
    for (const [org, ids] of [
      [a, aSchedules.map((schedule) => schedule.scheduleId)],
      [b, [bSchedule.scheduleId]],
    ] as const) {
      for (const scheduleId of ids) {
        await api.call(`/report-schedules/${org.orgId}/${scheduleId}`, { method: 'DELETE', token: org.token });
      }
    }
  });

  it("reads a suspended organisation's and a failing schedule again only after their wait, not at every sweep ahead of others (issue 35)", async () => {
    const suspended = await api.newOrg('Schedules while suspended');
    const failing = await api.newOrg('Schedules that fail');
    const quiet = await api.newOrg('Schedules of a neighbour');
    const at = farFromNow();
    const make = async (org: { orgId: string; token: string }, body: Record<string, unknown>) => {
      const response = await create(body, org.orgId, org.token);
      expect(response.status).toBe(201);
      return (await response.json()) as ScheduleView;
    };
    const daily = (reportType: string, time: string) => ({
      reportType,
      schedule: { every: 'day', at: time, timezone: 'UTC' },
    });
    // The suspended organisation's schedules (LIMIT of them) and the failing one are due a minute before the quiet
    // organisation's: in due order they are read first at every sweep unless their waits take them out of the way.
    const held = await Promise.all(Array.from({ length: LIMIT }, () => make(suspended, daily('CHAT', at))));
    const broken = await make(failing, daily('CONTACT', at));
    const due = Date.parse(held[0]!.nextRunAt!);
    const [hour, minute] = at.split(':').map(Number) as [number, number];
    const later = `${String(hour).padStart(2, '0')}:${String(minute + 1).padStart(2, '0')}`;
    const neighbour = await make(quiet, daily('CONTACT', later));

    const time = { now: new Date(due + 70_000) };
    const base = reportScheduleSweeperDeps();
    const sweeperDeps: RunScheduleDeps = {
      ...base,
      clock: { now: () => time.now },
      access: { workStatus: async (orgId: string) => (orgId === suspended.orgId ? 'suspended' : 'active') },
      // The failing organisation's occurrence fails every time it is run (a throttled table, say).
      reports: new Proxy(base.reports, {
        get: (target, property, receiver) =>
          property === 'get'
            ? async (orgId: string, reportId: string) => {
                if (orgId === failing.orgId) throw new Error('throttled');
                return target.get(orgId, reportId);
              }
            : Reflect.get(target, property, receiver),
      }),
    };
    // Sweeps of two schedules each (a stand-in for SCHEDULES_PER_SWEEP under a backlog), one a minute.
    const outcomes = [];
    for (let sweep = 0; sweep < 5; sweep++) {
      outcomes.push(await runReportSchedules(sweeperDeps, { perSweep: 2 }));
      time.now = new Date(time.now.getTime() + 60_000);
    }
    // Each waiting schedule is read once and then waits 5 minutes: the neighbour's runs by the fourth sweep (7 waiting
    // ahead of it, 2 a sweep), not never; the fifth finds nothing to read.
    expect(outcomes.slice(0, 4).reduce((sum, counts) => sum + counts.skipped, 0)).toBe(LIMIT);
    expect(outcomes.slice(0, 4).map((counts) => counts.requested)).toContain(1);
    expect(outcomes[4]).toEqual({ requested: 0, waiting: 0, taken: 0, skipped: 0 });
    const report = await deps().reports.get(
      quiet.orgId,
      occurrenceReportId(neighbour.scheduleId, new Date(due + 60_000)),
    );
    expect(report).toMatchObject({ reportType: 'CONTACT', scheduleId: neighbour.scheduleId });
    // Nothing is dropped: the waiting occurrences are still due, and are read again after their wait.
    const stillDue = await sweeperDeps.schedules.get(failing.orgId, broken.scheduleId);
    expect(stillDue?.pendingRunAt ?? stillDue?.nextRunAt).toBe(broken.nextRunAt);
    time.now = new Date(due + 70_000 + 301_000 + 4 * 60_000);
    expect(await runReportSchedules(sweeperDeps, { perSweep: 100 })).toMatchObject({ skipped: LIMIT });

    await settled(report);
    for (const [org, ids] of [
      [suspended, held.map((schedule) => schedule.scheduleId)],
      [failing, [broken.scheduleId]],
      [quiet, [neighbour.scheduleId]],
    ] as const) {
      for (const scheduleId of ids) {
        await api.call(`/report-schedules/${org.orgId}/${scheduleId}`, { method: 'DELETE', token: org.token });
      }
    }
  });

  it('runs nothing while paused, and does not replay what was missed when resumed', async () => {
    const schedule = await created({
      reportType: 'BOOKING',
      schedule: { every: 'day', at: farFromNow(), timezone: 'UTC' },
    });
    expect((await patch(schedule.scheduleId, { status: 'paused' })).status).toBe(200);
    const { time, run } = sweeper();
    time.now = new Date(Date.parse(schedule.nextRunAt!) + 3 * 86_400_000);
    await run();
    for (const day of [0, 1, 2]) {
      const occurrence = new Date(Date.parse(schedule.nextRunAt!) + day * 86_400_000).toISOString();
      expect(await reportOf(schedule.scheduleId, occurrence)).toBeUndefined();
    }
    const resumed = (await (await patch(schedule.scheduleId, { status: 'active' })).json()) as ScheduleView;
    expect(Date.parse(resumed.nextRunAt!)).toBeGreaterThan(Date.now());
    expect(resumed.nextRunAt).toBe(schedule.nextRunAt);
    expect((await remove(schedule.scheduleId)).status).toBe(204);
  });

  it('names the schedule in report.completed (schedule_id), and null for a report requested by hand', async () => {
    const subscription = (await (
      await api.call(`/webhooks/${api.orgId}`, {
        method: 'POST',
        token: await admin(),
        json: { url: `${receiver.url}/schedules`, events: ['report.completed'] },
      })
    ).json()) as { webhookId: string; secret: string };
    const schedule = await created({
      reportType: 'SURVEY_RESPONSES',
      schedule: { every: 'day', at: farFromNow(), timezone: 'UTC' },
    });
    const { time, deps: sweeperDeps, run } = sweeper();
    // By hand first (the window then ends before the occurrence).
    time.now = new Date(Date.parse(schedule.nextRunAt!) - 600_000);
    const manual = await requestReport(sweeperDeps, {
      orgId: api.orgId,
      requestedBy: 'cli_manual',
      reportType: 'SURVEY_RESPONSES',
      filters: {},
    });
    await settled(manual as Report);
    time.now = new Date(Date.parse(schedule.nextRunAt!) + 5_000);
    expect((await run()).requested).toBe(1);
    const report = await reportOf(schedule.scheduleId, schedule.nextRunAt!);

    const bodies = await eventually(
      () => {
        const received = receiver
          .requestsTo('/schedules')
          .map(
            (request) =>
              new Webhook(subscription.secret).verify(
                request.body,
                request.headers as Record<string, string>,
              ) as Record<string, unknown>,
          );
        const ours = received.filter((body) => [manual.reportId, report!.reportId].includes(String(body.report_id)));
        expect(ours).toHaveLength(2);
        return ours;
      },
      { timeoutMs: 30_000 },
    );
    expect(bodies.find((body) => body.report_id === report!.reportId)).toMatchObject({
      type: 'report.completed',
      report_type: 'SURVEY_RESPONSES',
      schedule_id: schedule.scheduleId,
    });
    expect(bodies.find((body) => body.report_id === manual.reportId)).toMatchObject({ schedule_id: null });
    await api.call(`/webhooks/${api.orgId}/${subscription.webhookId}`, { method: 'DELETE', token: await admin() });
    expect((await remove(schedule.scheduleId)).status).toBe(204);
  });
});
