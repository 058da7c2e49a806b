import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '#test/support/eventually';
import { client, localDeployment } from './target.ts';

describe('a report from request to download', () => {
  const deployment = localDeployment();
  const { orgId } = deployment;
  let owner: ReturnType<typeof client>;
  let reportId: string;

  beforeAll(async () => {
    owner = client(await deployment.token('ACCOUNT_OWNER'));
  });

  it('accepts a TICKET report, or names the one that holds the 5-minute window', async () => {
    const { data, error, response } = await owner.POST('/api/wp-crm/reports/{organisationId}', {
      params: { path: { organisationId: orgId } },
      body: { reportType: 'TICKET', ticketIsResolved: false },
    });

    expect([202, 409]).toContain(response.status);
    reportId = data?.reportId ?? (error as { reportId: string }).reportId;
    expect(reportId).toMatch(/^rpt_/);
    if (data) expect(response.headers.get('location')).toBe(`/api/wp-crm/reports/${orgId}/${reportId}`);
  });

  it('completes the report and lists it', async () => {
    const report = await eventually(
      async () => {
        const { data: current } = await owner.GET('/api/wp-crm/reports/{organisationId}/{reportId}', {
          params: { path: { organisationId: orgId, reportId } },
        });
        expect(current?.status).toBe('COMPLETED');
        return current!;
      },
      { timeoutMs: 30_000 },
    );
    const { data: listed } = await owner.GET('/api/wp-crm/reports/{organisationId}', {
      params: { path: { organisationId: orgId }, query: { reportType: 'TICKET' } },
    });

    expect(report.rowCount).toBeGreaterThan(0);
    expect(report.filters).toEqual({ ticketIsResolved: false });
    expect(listed!.reports.map((item) => item.reportId)).toContain(reportId);
  });

  it('downloads the CSV through the pre-signed URL', async () => {
    const path = { organisationId: orgId, reportId };
    const { response: redirect } = await owner.GET('/api/wp-crm/reports/{organisationId}/{reportId}/download', {
      params: { path },
      redirect: 'manual',
    });
    const location = redirect.headers.get('location')!;
    const { data: url } = await owner.GET('/api/wp-crm/reports/{organisationId}/{reportId}/download', {
      params: { path, query: { redirect: 'false' } },
    });

    const file = await fetch(location);

    expect(redirect.status).toBe(303);
    expect(new URL(url!.url).pathname).toBe(new URL(location).pathname);
    expect(file.status).toBe(200);
    const csv = await file.text();
    expect(csv.split('\r\n')[0]).toBe(
      'ticketId,number,isResolved,priority,assignedUserIds,createdByUserId,ticketMachineId,chatId,remarks,issueNames,createdAt',
    );
  });
});
