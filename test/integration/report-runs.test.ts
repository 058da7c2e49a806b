import { describe, expect, it } from 'vitest';
import { DynamoCrmStore } from '#shared/adapters/dynamodb/crm-store';
import { DynamoReportStore } from '#shared/adapters/dynamodb/report-store';
import { loadConfig } from '#shared/config/env';
import { reportDownload } from '#shared/domain/reports/read-reports';
import { reportObjectKey } from '#shared/domain/reports/report';
import { requestReport } from '#shared/domain/reports/request-report';
import { processReportJob, runReport } from '#shared/domain/reports/run-report';
import { sweepReports } from '#shared/domain/reports/sweep-reports';
import type { DomainEvent } from '#shared/ports/event-publisher';
import { ulidIds } from '#shared/ports/ids';
import { RetryLater } from '#shared/queue/retry';
import { useDynamo } from '#test/support/dynamo';

const table = useDynamo();
const TIMEOUT_SECONDS = 900;

function harness() {
  const time = { now: new Date('2026-11-23T10:00:00.000Z') };
  const uploads: string[] = [];
  const deleted: string[] = [];
  const signed: number[] = [];
  const queued: unknown[] = [];
  const published: DomainEvent[] = [];
  const uploadGate = { hold: undefined as Promise<void> | undefined, fail: 0 };
  const suspended = new Set<string>();
  const deps = {
    access: {
      workStatus: async (orgId: string) => (suspended.has(orgId) ? ('suspended' as const) : ('active' as const)),
    },
    config: loadConfig({ REPORT_PROCESSING_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS) }),
    clock: { now: () => time.now },
    ids: ulidIds(),
    reports: new DynamoReportStore(table.db, table.tableName),
    crm: new DynamoCrmStore(table.db, table.tableName),
    queue: { send: async (_: string, body: unknown) => void queued.push(body), retryAfter: async () => undefined },
    events: { publish: async (events: DomainEvent[]) => void published.push(...events) },
    files: {
      upload: async (key: string, body: AsyncIterable<string | Uint8Array>) => {
        uploads.push(key);
        await uploadGate.hold;
        if (uploadGate.fail > 0) {
          uploadGate.fail -= 1;
          throw new Error('S3 is unavailable');
        }
        let sizeBytes = 0;
        for await (const chunk of body) sizeBytes += Buffer.byteLength(chunk);
        return { sizeBytes };
      },
      downloadUrl: async (_key: string, _name: string, expiresInSeconds: number) => {
        signed.push(expiresInSeconds);
        return 'https://example.invalid';
      },
      delete: async (key: string) => void deleted.push(key),
    },
  };
  const advance = (seconds: number) => {
    time.now = new Date(time.now.getTime() + seconds * 1000);
  };
  const request = async () => {
    const orgId = crypto.randomUUID();
    const report = await requestReport(deps, { orgId, requestedBy: 'cli_1', reportType: 'GOAL', filters: {} });
    queued.length = 0;
    return { orgId, reportId: report.reportId };
  };
  /** A run that hangs in its upload (its lease keeps being renewed) while the test goes on. */
  const hungRun = async (job: { orgId: string; reportId: string }) => {
    uploadGate.hold = new Promise(() => undefined);
    void runReport(deps, job);
    await expect.poll(() => uploads.length).toBe(1);
  };
  return { deps, uploads, deleted, signed, queued, published, uploadGate, advance, request, suspended, hungRun };
}

describe('report runs', () => {
  it('runs a report once at a time: a second delivery while it runs does nothing', async () => {
    const h = harness();
    const job = await h.request();
    let release: () => void = () => {};
    h.uploadGate.hold = new Promise<void>((resolve) => {
      release = resolve;
    });

    const first = runReport(h.deps, job);
    await expect.poll(() => h.uploads.length).toBe(1);
    await runReport(h.deps, job);
    release();
    await first;

    expect(h.uploads).toHaveLength(1);
    expect((await h.deps.reports.get(job.orgId, job.reportId))?.status).toBe('COMPLETED');
    expect(h.published.map((event) => event.type)).toEqual(['report.completed']);
  });

  it('does not time out a report that waits in the queue longer than the timeout', async () => {
    const h = harness();
    const job = await h.request();
    h.advance(TIMEOUT_SECONDS + 60);

    await sweepReports(h.deps);
    const afterSweep = await h.deps.reports.get(job.orgId, job.reportId);
    await runReport(h.deps, job);

    expect(afterSweep?.status).toBe('PENDING');
    expect((await h.deps.reports.get(job.orgId, job.reportId))?.status).toBe('COMPLETED');
  });

  it('fails a report still running REPORT_PROCESSING_TIMEOUT_SECONDS after it started', async () => {
    const h = harness();
    const job = await h.request();
    h.advance(600);
    await h.hungRun(job);

    h.advance(TIMEOUT_SECONDS - 1);
    await sweepReports(h.deps);
    const justBefore = await h.deps.reports.get(job.orgId, job.reportId);
    h.advance(1);
    await sweepReports(h.deps);

    expect(justBefore?.status).toBe('PROCESSING');
    expect(await h.deps.reports.get(job.orgId, job.reportId)).toMatchObject({
      status: 'FAILED',
      error: { code: 'REPORT_TIMEOUT' },
    });
    expect(h.published.map((event) => event.type)).toEqual(['report.failed']);
  });

  it("neither times out nor queues again a suspended organisation's report (CONTRACT §17)", async () => {
    const h = harness();
    const job = await h.request();
    await h.hungRun(job);
    h.suspended.add(job.orgId);
    h.advance(TIMEOUT_SECONDS + 1);

    const swept = await sweepReports(h.deps);
    const untouched = await h.deps.reports.get(job.orgId, job.reportId);
    h.suspended.delete(job.orgId);
    const afterResume = await sweepReports(h.deps);

    expect(swept).toMatchObject({ timedOut: 0, requeued: 0 });
    expect(untouched?.status).toBe('PROCESSING');
    // Resumed, the run that hung before the suspension is past its time as before.
    expect(afterResume.timedOut).toBe(1);
    expect(h.published.map((event) => event.type)).toEqual(['report.failed']);
  });

  it('queues a report again once the run holding it died, and lets the next run take it over', async () => {
    const h = harness();
    const job = await h.request();
    await h.hungRun(job);

    await sweepReports(h.deps);
    const whileLeased = h.queued.length;
    h.advance(61);
    await sweepReports(h.deps);
    await sweepReports(h.deps);
    h.uploadGate.hold = undefined;
    await runReport(h.deps, job);

    expect(whileLeased).toBe(0);
    expect(h.queued).toEqual([job]);
    expect(h.uploads).toHaveLength(2);
    expect((await h.deps.reports.get(job.orgId, job.reportId))?.status).toBe('COMPLETED');
  });

  it('lets the retry of a failed run claim the report at once', async () => {
    const h = harness();
    const job = await h.request();
    h.uploadGate.fail = 1;

    await expect(processReportJob(h.deps, job, 1, 5)).rejects.toBeInstanceOf(RetryLater);
    await processReportJob(h.deps, job, 2, 5);

    expect(h.uploads).toHaveLength(2);
    expect((await h.deps.reports.get(job.orgId, job.reportId))?.status).toBe('COMPLETED');
  });

  it('queues a waiting report again after 1, 2, 4 … minutes, not on every sweep', async () => {
    const h = harness();
    const job = await h.request();
    const queuedAfter = async (seconds: number) => {
      h.advance(seconds);
      await sweepReports(h.deps);
      return h.queued.length;
    };

    const counts = [await queuedAfter(59), await queuedAfter(1), await queuedAfter(60), await queuedAfter(60)];
    const later = [await queuedAfter(60), await queuedAfter(60), await queuedAfter(120)];

    expect(counts).toEqual([0, 1, 1, 2]);
    expect(later).toEqual([2, 2, 3]);
    expect(h.queued.every((body) => JSON.stringify(body) === JSON.stringify(job))).toBe(true);
  });

  it('deletes a completed report’s file at its expiresAt, not before, and once', async () => {
    const h = harness();
    const job = await h.request();
    await runReport(h.deps, job);
    const retention = h.deps.config.reports.retentionSeconds;

    h.advance(retention - 1);
    const early = await sweepReports(h.deps);
    h.advance(1);
    await sweepReports(h.deps);
    const afterDue = [...h.deleted];
    await sweepReports(h.deps);

    expect(early.deleted).toBe(0);
    expect(afterDue).toContain(reportObjectKey(job.orgId, job.reportId));
    expect(h.deleted.filter((key) => key === reportObjectKey(job.orgId, job.reportId))).toHaveLength(1);
    expect((await h.deps.reports.get(job.orgId, job.reportId))?.fileDeletedAt).toBeDefined();
  });

  it('signs a download URL that never outlives the report’s expiresAt', async () => {
    const h = harness();
    const job = await h.request();
    await runReport(h.deps, job);
    const { expiresAt } = (await h.deps.reports.get(job.orgId, job.reportId))!;
    const ttl = h.deps.config.reports.downloadUrlTtlSeconds;

    const fresh = await reportDownload(h.deps, job);
    h.advance(h.deps.config.reports.retentionSeconds - 100);
    const late = await reportDownload(h.deps, job);

    expect(h.signed).toEqual([ttl, 100]);
    expect(Date.parse(fresh.expiresAt)).toBeLessThan(Date.parse(expiresAt!));
    expect(late.expiresAt).toBe(expiresAt);
  });
});
