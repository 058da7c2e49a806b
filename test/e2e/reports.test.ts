import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killCliProcesses, wpcrm } from '#test/support/cli';
import { eventually } from '#test/support/eventually';
import { csvTextOf, decompressed, readXlsx } from '#test/support/report-files';
import { call, client, dataDir, localDeployment } from './target.ts';

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

describe('a gzipped XLSX report (CONTRACT §23) under the deployment', () => {
  const run = (...args: string[]) => wpcrm(args, dataDir, 120_000);
  const scratch = mkdtempSync(join(tmpdir(), 'wpcrm-e2e-xlsx-'));
  let admin: ReturnType<typeof client>;
  let orgId: string;
  afterAll(() => {
    killCliProcesses();
    rmSync(scratch, { recursive: true, force: true });
  });

  // A fresh organisation: the 5-minute window of each type of the demo organisation is other tests' to take.
  beforeAll(async () => {
    orgId = JSON.parse((await run('org', 'create', '--name', 'Formats')).stdout).orgId;
    const { clientId, clientSecret } = JSON.parse(
      (await run('credential', 'create', '--org', orgId, '--roles', 'CRM_ADMIN')).stdout,
    );
    const issued = await call('/token', { method: 'POST', json: { clientId, clientSecret } });
    expect(issued.status).toBe(200);
    admin = client(((await issued.json()) as { accessToken: string }).accessToken);
    const file = join(scratch, 'bookings.jsonl');
    const booking = (bookingId: string, startsAt: string, agentUserId?: string) =>
      JSON.stringify({
        recordType: 'BOOKING',
        bookingId,
        type: 'ONLINE',
        status: 'CONFIRMED',
        agentUserId,
        startsAt,
        endsAt: startsAt,
      });
    writeFileSync(
      file,
      [booking('b-1', '2026-11-02T09:00:00Z', '=1+1'), booking('b-2', '2026-11-01T09:00:00Z')].join('\n'),
    );
    await run('data', 'import', '--org', orgId, '--file', file);
  }, 300_000);

  it('stores application/gzip, serves a .xlsx.gz file, and holds the typed rows', async () => {
    const { data: accepted, response } = await admin.POST('/api/wp-crm/reports/{organisationId}', {
      params: { path: { organisationId: orgId } },
      body: { reportType: 'BOOKING', format: 'xlsx', compression: 'gzip' },
    });
    expect(response.status).toBe(202);
    const reportId = accepted!.reportId;
    const report = await eventually(
      async () => {
        const { data: current } = await admin.GET('/api/wp-crm/reports/{organisationId}/{reportId}', {
          params: { path: { organisationId: orgId, reportId } },
        });
        expect(current?.status).toBe('COMPLETED');
        return current!;
      },
      { timeoutMs: 30_000 },
    );
    const { response: redirect } = await admin.GET('/api/wp-crm/reports/{organisationId}/{reportId}/download', {
      params: { path: { organisationId: orgId, reportId } },
      redirect: 'manual',
    });

    const file = await fetch(redirect.headers.get('location')!);

    expect(accepted!.format).toBe('application/gzip');
    expect(report).toMatchObject({ format: 'application/gzip', rowCount: 2 });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/gzip');
    expect(file.headers.get('content-disposition')).toMatch(/^attachment; filename="booking-report-[\w-]+\.xlsx\.gz"$/);
    const bytes = new Uint8Array(await file.arrayBuffer());
    expect(report.sizeBytes).toBe(bytes.length);
    const [sheet, ...more] = await readXlsx(decompressed(bytes), 7);
    expect(more).toHaveLength(0);
    expect(sheet!.rows.map((row) => row.map(csvTextOf))).toEqual([
      ['bookingId', 'type', 'status', 'agentUserId', 'contactId', 'startsAt', 'endsAt'],
      ['b-1', 'ONLINE', 'CONFIRMED', "'=1+1", '', '2026-11-02T09:00:00.000Z', '2026-11-02T09:00:00.000Z'],
      ['b-2', 'ONLINE', 'CONFIRMED', '', '', '2026-11-01T09:00:00.000Z', '2026-11-01T09:00:00.000Z'],
    ]);
    expect(sheet!.rows[1]![3]).toEqual({ type: 'string', value: '=1+1' });
    expect(sheet!.rows[1]![5]!.type).toBe('date');
  });
});
