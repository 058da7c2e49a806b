import { describe, expect, it } from 'vitest';
import { deps } from '#shared/config/deps';
import { createCredential, createOrg } from '#shared/domain/orgs/administer';
import { eventually, type TestStack, useLocalStack } from '#test/support/local-stack';

async function newOrg(api: TestStack) {
  const { orgId } = await createOrg(deps(), { name: `Org ${Math.random()}` });
  const { clientId, clientSecret } = await createCredential(deps(), { orgId, roles: ['CRM_ADMIN'] });
  const { accessToken } = (await (
    await api.call('/token', { method: 'POST', json: { clientId, clientSecret } })
  ).json()) as {
    accessToken: string;
  };
  return { orgId, token: accessToken };
}

const problem = async (response: Response) =>
  (await response.json()) as {
    code: string;
    reportId?: string;
    retryAfterSeconds?: number;
    errors?: { pointer: string }[];
  };

describe('POST /reports/:organisationId', () => {
  const api = useLocalStack();
  const post = (orgId: string, token: string, json: unknown, headers: Record<string, string> = {}) =>
    api.call(`/reports/${orgId}`, { method: 'POST', token, json, headers });

  it('lets exactly one of 50 concurrent requests of a type win, without blocking other types or organisations (E-1, E-2)', async () => {
    const { orgId, token } = await newOrg(api);
    const other = await newOrg(api);

    const responses = await Promise.all(Array.from({ length: 50 }, () => post(orgId, token, { reportType: 'TICKET' })));
    const otherType = await post(orgId, token, { reportType: 'GOAL' });
    const otherOrg = await post(other.orgId, other.token, { reportType: 'TICKET' });

    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 202)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(49);
    const winner = (await responses.find((response) => response.status === 202)!.json()) as { reportId: string };
    const loser = responses.find((response) => response.status === 409)!;
    expect(await problem(loser)).toMatchObject({ code: 'REPORT_RATE_LIMITED', reportId: winner.reportId });
    expect(Number(loser.headers.get('retry-after'))).toBeGreaterThan(290);
    expect(otherType.status).toBe(202);
    expect(otherOrg.status).toBe(202);
  });

  it('answers 202 with the PENDING record, normalised filters and Location, and completes it', async () => {
    const { orgId, token } = await newOrg(api);

    const response = await post(orgId, token, { reportType: 'CHAT', labelIds: [], chatType: 'GROUP' });
    const report = (await response.json()) as Record<string, unknown>;
    const final = await eventually(async () => {
      const current = (await (await api.call(`/reports/${orgId}/${report.reportId}`, { token })).json()) as Record<
        string,
        unknown
      >;
      expect(current.status).toBe('COMPLETED');
      return current;
    });

    expect(response.status).toBe(202);
    expect(response.headers.get('location')).toBe(`/api/wp-crm/reports/${orgId}/${report.reportId}`);
    expect(report).toMatchObject({
      status: 'PENDING',
      reportType: 'CHAT',
      format: 'text/csv',
      filters: { isResolved: false, chatType: 'GROUP' },
    });
    expect(report.filters).not.toHaveProperty('labelIds');
    expect(final).toMatchObject({
      rowCount: 0,
      sizeBytes: expect.any(Number),
      expiresAt: expect.any(String),
      startedAt: expect.any(String),
    });
    await eventually(() => {
      const events = api.stack.bus.published.filter((event) => event.detail.report_id === report.reportId);
      expect(events.map((event) => event['detail-type'])).toEqual(['report.completed']);
    });
  });

  it('replays the winner for a retry with the same Idempotency-Key instead of answering 409 (E-4)', async () => {
    const { orgId, token } = await newOrg(api);

    const first = await post(orgId, token, { reportType: 'BOOKING' }, { 'idempotency-key': 'report-1' });
    const retry = await post(orgId, token, { reportType: 'BOOKING' }, { 'idempotency-key': 'report-1' });
    const fresh = await post(orgId, token, { reportType: 'BOOKING' }, { 'idempotency-key': 'report-2' });

    expect(first.status).toBe(202);
    expect(retry.status).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(((await retry.json()) as { reportId: string }).reportId).toBe(
      ((await first.json()) as { reportId: string }).reportId,
    );
    expect(fresh.status).toBe(409);
  });

  it.each([
    ['a filter of another type', { reportType: 'CHAT', ticketIsResolved: true }, '/ticketIsResolved'],
    ['an unknown property', { reportType: 'GOAL', colour: 'blue' }, '/colour'],
    ['an unknown report type', { reportType: 'INVOICE' }, '/reportType'],
    ['a malformed date', { reportType: 'CHAT', updatedAfter: '22/11/2026' }, '/updatedAfter'],
    [
      'malformed rules JSON',
      { reportType: 'CONTACT', contactCustomFieldRules: '[{"field":' },
      '/contactCustomFieldRules',
    ],
    [
      'an unknown rules operator',
      { reportType: 'GOAL', goalTrackerValueRules: '[{"field":"a","operator":"like","value":1}]' },
      '/goalTrackerValueRules',
    ],
    [
      'too many ids',
      { reportType: 'CHAT', labelIds: Array.from({ length: 101 }, (_, index) => `l${index}`) },
      '/labelIds',
    ],
  ])('answers 400 with a pointer for %s, without claiming the window', async (_, body, pointer) => {
    const { orgId, token } = await newOrg(api);

    const response = await post(orgId, token, body);
    const valid = await post(orgId, token, {
      reportType:
        (body as { reportType: string }).reportType === 'INVOICE'
          ? 'CHAT'
          : (body as { reportType: string }).reportType,
    });

    expect(response.status).toBe(400);
    expect((await problem(response)).errors?.map((error) => error.pointer)).toContain(pointer);
    expect(valid.status).toBe(202);
  });

  it('answers 403 for agents and bots, and 401 ORG_MISMATCH for another organisation', async () => {
    const { orgId, token } = await newOrg(api);

    const agent = await post(api.orgId, await api.token('CRM_AGENT'), { reportType: 'CHAT' });
    const bot = await api.call(`/reports/${api.orgId}`, { token: await api.token('CRM_BOT') });
    const foreign = await api.call(`/reports/${api.orgId}`, { token });

    expect(agent.status).toBe(403);
    expect(bot.status).toBe(403);
    expect(foreign.status).toBe(401);
    expect(orgId).not.toBe(api.orgId);
  });
});

describe('reading reports', () => {
  const api = useLocalStack();

  it('lists newest first with filters and cursor paging, and hides other organisations (B-2, B-6)', async () => {
    const { orgId, token } = await newOrg(api);
    const ids: string[] = [];
    for (const reportType of ['CHAT', 'CONTACT', 'TICKET']) {
      ids.push(
        (
          (await (await api.call(`/reports/${orgId}`, { method: 'POST', token, json: { reportType } })).json()) as {
            reportId: string;
          }
        ).reportId,
      );
    }

    const first = (await (await api.call(`/reports/${orgId}?limit=2`, { token })).json()) as {
      reports: { reportId: string }[];
      nextCursor: string;
    };
    const rest = (await (await api.call(`/reports/${orgId}?limit=2&cursor=${first.nextCursor}`, { token })).json()) as {
      reports: { reportId: string }[];
      nextCursor: string | null;
    };
    const contacts = (await (await api.call(`/reports/${orgId}?reportType=CONTACT`, { token })).json()) as {
      reports: { reportId: string }[];
    };
    const otherCursor = await api.call(`/reports/${orgId}?reportType=CHAT&cursor=${first.nextCursor}`, { token });
    const crossTenant = await api.call(`/reports/${api.orgId}/${ids[0]}`, { token: await api.token('CRM_ADMIN') });
    const badStatus = await api.call(`/reports/${orgId}?status=DONE`, { token });

    expect([...first.reports, ...rest.reports].map((report) => report.reportId)).toEqual([...ids].reverse());
    expect(rest.nextCursor).toBeNull();
    expect(contacts.reports.map((report) => report.reportId)).toEqual([ids[1]]);
    expect(otherCursor.status).toBe(400);
    expect(crossTenant.status).toBe(404);
    expect(((await crossTenant.json()) as { code: string }).code).toBe('REPORT_NOT_FOUND');
    expect(badStatus.status).toBe(400);
  });

  it('downloads through a 303 to a pre-signed URL, or returns the URL with redirect=false', async () => {
    const { orgId, token } = await newOrg(api);
    const { reportId } = (await (
      await api.call(`/reports/${orgId}`, { method: 'POST', token, json: { reportType: 'GOAL' } })
    ).json()) as {
      reportId: string;
    };
    await eventually(async () =>
      expect(
        ((await (await api.call(`/reports/${orgId}/${reportId}`, { token })).json()) as { status: string }).status,
      ).toBe('COMPLETED'),
    );

    const redirect = await api.call(`/reports/${orgId}/${reportId}/download`, { token, redirect: 'manual' });
    const json = (await (
      await api.call(`/reports/${orgId}/${reportId}/download?redirect=false`, { token })
    ).json()) as { url: string; expiresAt: string };
    const file = await fetch(redirect.headers.get('location')!);

    expect(redirect.status).toBe(303);
    expect(redirect.headers.get('location')).toContain('X-Amz-Expires=900');
    expect(redirect.headers.get('cache-control')).toBe('no-store');
    expect(json.url).toContain(`/org/${orgId}/reports/${reportId}.csv`);
    expect(Date.parse(json.expiresAt) - Date.now()).toBeGreaterThan(800_000);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-disposition')).toMatch(/^attachment; filename="goal-report-.*\.csv"$/);
    expect(await file.text()).toBe('goalEventId,goalId,channelId,chatId,trackerValues,recordedAt\r\n');
  });

  it('answers 409 REPORT_NOT_READY while a report is pending', async () => {
    const { orgId, token } = await newOrg(api);
    await deps().reports.create({
      reportId: 'rpt_pending',
      organisationId: orgId,
      reportType: 'CHAT',
      status: 'PENDING',
      filters: {},
      requestedAt: new Date().toISOString(),
      requestedBy: 'test',
      format: 'text/csv',
    });

    const response = await api.call(`/reports/${orgId}/rpt_pending/download`, { token });

    expect(response.status).toBe(409);
    expect(((await response.json()) as { code: string }).code).toBe('REPORT_NOT_READY');
  });
});

describe('report expiry and failure', () => {
  const api = useLocalStack({ REPORT_PROCESSING_TIMEOUT_SECONDS: '1', WPCRM_SWEEP_INTERVAL_MS: '100' });

  it('fails a report stuck past its processing timeout with REPORT_TIMEOUT, keeps the type blocked, and publishes report.failed (E-5)', async () => {
    const { orgId, token } = await newOrg(api);
    const reportId = 'rpt_stuck';
    const requestedAt = new Date(Date.now() - 2_000);
    await deps().reports.claimWindow(orgId, 'CHAT', reportId, requestedAt, 300);
    await deps().reports.create({
      reportId,
      organisationId: orgId,
      reportType: 'CHAT',
      status: 'PENDING',
      filters: {},
      requestedAt: requestedAt.toISOString(),
      requestedBy: 'test',
      format: 'text/csv',
    });
    await deps().reports.transition(orgId, reportId, ['PENDING'], 'PROCESSING', {
      now: requestedAt.toISOString(),
      startedAt: requestedAt.toISOString(),
    });

    const failed = await eventually(async () => {
      const report = (await (await api.call(`/reports/${orgId}/${reportId}`, { token })).json()) as {
        status: string;
        error?: { code: string };
      };
      expect(report.status).toBe('FAILED');
      return report;
    });
    const download = await api.call(`/reports/${orgId}/${reportId}/download`, { token });
    const again = await api.call(`/reports/${orgId}`, { method: 'POST', token, json: { reportType: 'CHAT' } });

    expect(failed.error?.code).toBe('REPORT_TIMEOUT');
    expect(download.status).toBe(409);
    expect(((await download.json()) as { code: string }).code).toBe('REPORT_FAILED');
    expect(again.status).toBe(409);
    await eventually(() =>
      expect(
        api.stack.bus.published
          .filter((event) => event.detail.report_id === reportId)
          .map((event) => event['detail-type']),
      ).toEqual(['report.failed']),
    );
  });

  it('shows a completed report as EXPIRED once expiresAt passed, and answers 410 REPORT_EXPIRED', async () => {
    const { orgId, token } = await newOrg(api);
    const past = new Date(Date.now() - 60_000).toISOString();
    await deps().reports.create({
      reportId: 'rpt_old',
      organisationId: orgId,
      reportType: 'CHAT',
      status: 'COMPLETED',
      filters: {},
      requestedAt: past,
      requestedBy: 'test',
      completedAt: past,
      rowCount: 0,
      sizeBytes: 10,
      expiresAt: past,
      format: 'text/csv',
    });

    const report = (await (await api.call(`/reports/${orgId}/rpt_old`, { token })).json()) as { status: string };
    const expiredList = (await (await api.call(`/reports/${orgId}?status=EXPIRED`, { token })).json()) as {
      reports: { reportId: string }[];
    };
    const download = await api.call(`/reports/${orgId}/rpt_old/download`, { token });

    expect(report.status).toBe('EXPIRED');
    expect(expiredList.reports.map((item) => item.reportId)).toEqual(['rpt_old']);
    expect(download.status).toBe(410);
    expect(((await download.json()) as { code: string }).code).toBe('REPORT_EXPIRED');
  });
});
