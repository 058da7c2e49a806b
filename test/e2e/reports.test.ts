import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '#test/support/eventually';
import { call, localDeployment } from './target.ts';

interface Report {
  reportId: string;
  status: string;
  rowCount?: number;
}

describe('a report from request to download', () => {
  const deployment = localDeployment();
  const { orgId } = deployment;
  let owner: string;
  let reportId: string;

  beforeAll(async () => {
    owner = await deployment.token('ACCOUNT_OWNER');
  });

  it('accepts a TICKET report, or names the one that holds the 5-minute window', async () => {
    const response = await call(`/reports/${orgId}`, {
      method: 'POST',
      token: owner,
      json: { reportType: 'TICKET', ticketIsResolved: false },
    });

    expect([202, 409]).toContain(response.status);
    reportId = ((await response.json()) as { reportId: string }).reportId;
    expect(reportId).toMatch(/^rpt_/);
  });

  it('completes the report and lists it', async () => {
    const report = await eventually(
      async () => {
        const current = (await (await call(`/reports/${orgId}/${reportId}`, { token: owner })).json()) as Report;
        expect(current.status).toBe('COMPLETED');
        return current;
      },
      { timeoutMs: 30_000 },
    );
    const listed = (await (await call(`/reports/${orgId}?reportType=TICKET`, { token: owner })).json()) as {
      reports: Report[];
    };

    expect(report.rowCount).toBeGreaterThan(0);
    expect(listed.reports.map((item) => item.reportId)).toContain(reportId);
  });

  it('downloads the CSV through the pre-signed URL', async () => {
    const redirect = await call(`/reports/${orgId}/${reportId}/download`, { token: owner, redirect: 'manual' });
    const location = redirect.headers.get('location')!;

    const file = await fetch(location);

    expect(redirect.status).toBe(303);
    expect(file.status).toBe(200);
    const csv = await file.text();
    expect(csv.split('\r\n')[0]).toBe(
      'ticketId,number,isResolved,priority,assignedUserIds,createdByUserId,ticketMachineId,chatId,remarks,issueNames,createdAt',
    );
  });
});
