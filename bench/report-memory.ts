import { fork } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { S3ReportFiles } from '#shared/adapters/s3/report-files';
import { S3Rest } from '#shared/adapters/s3/s3-rest';
import {
  REPORT_COMPRESSIONS,
  REPORT_FORMATS,
  type ReportCompression,
  type ReportFormat,
  reportMediaType,
} from '#shared/domain/reports/formats';
import { type ChatRecord, RECORD_KINDS, type RecordOf, type ReportType } from '#shared/domain/reports/records';
import type { Report } from '#shared/domain/reports/report';
import { runReport } from '#shared/domain/reports/run-report';
import type { CrmStore } from '#shared/ports/crm-store';
import type { ReportStore } from '#shared/ports/report-store';

/**
 * One measured run: the raw baseline, the report, and the raw baseline again; the report's share is taken against
 * the mean of the two baselines, so that a change in the machine's load during the run weighs on both sides alike.
 */
export interface ReportMemoryRun {
  rows: number;
  sizeMiB: number;
  seconds: number;
  rowsPerSecond: number;
  raw: { rows: number; seconds: number; rowsPerSecond: number; sizeMiB: number };
  /** rowsPerSecond / raw.rowsPerSecond */
  share: number;
  peakRssGrowthMiB: number;
  atPeakMiB: { heapUsed: number; heapTotal: number; external: number; arrayBuffers: number };
  /** The 1-minute load average before and after the run (os.loadavg): what else the machine was doing. */
  load: { before: number; after: number };
}

/**
 * 1,000,000-row CHAT report through the real filter, encoder (CSV unless `file` says otherwise) and multipart-upload
 * code: records come from an in-memory generator (no database), the file goes to the embedded S3 server running in
 * another process.
 * `runs` measured runs after one warm-up; the figures reported are the worst of them: the lowest share of raw CSV
 * throughput and the highest peak RSS growth of this process (each run's own figures are in `runs`).
 */
export async function reportMemoryBenchmark(
  rows = 1_000_000,
  warmUpRows = 20_000,
  runs = 3,
  file: { format: ReportFormat; compression: ReportCompression } = { format: 'csv', compression: 'none' },
) {
  const child = fork(new URL('./s3-server.ts', import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    stdio: 'inherit',
  });
  const { endpoint, directory } = await new Promise<{ endpoint: string; directory: string }>((resolve) =>
    child.once('message', resolve as never),
  );
  try {
    const s3 = new S3Rest(
      { bucket: 'bench', region: 'eu-west-1', endpoint },
      { credentials: async () => ({ accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }), requestTimeoutMs: 30_000 },
    );
    const report: Report = {
      reportId: 'rpt_bench',
      organisationId: 'org',
      reportType: 'CHAT',
      status: 'PENDING',
      filters: { isResolved: false },
      requestedAt: new Date().toISOString(),
      requestedBy: 'bench',
      format: reportMediaType(file.format, file.compression),
      fileFormat: file.format,
      compression: file.compression,
    };
    const base = Date.parse('2026-06-01T00:00:00.000Z');
    const source = (count: number): Pick<CrmStore, 'pages'> => ({
      async *pages<T extends ReportType>() {
        for (let start = 0; start < count; start += 500) {
          const page: ChatRecord[] = [];
          for (let index = start; index < Math.min(count, start + 500); index++)
            page.push(chatRecord(index, base - index * 1000));
          yield page as unknown as RecordOf<T>[];
        }
      },
    });
    const run = (reports: ReportStore, count: number) =>
      runReport(
        {
          config: {
            reports: {
              windowSeconds: 300,
              processingTimeoutSeconds: 900,
              retentionSeconds: 3600,
              downloadUrlTtlSeconds: 900,
              s3PublicUrl: undefined,
            },
          },
          clock: { now: () => new Date() },
          reports,
          crm: source(count) as CrmStore,
          files: new S3ReportFiles(s3),
          events: { publish: async () => undefined },
        },
        { orgId: 'org', reportId: 'rpt_bench' },
      );
    // A small report first: module loading and client set-up are one-off costs, not growth with rows.
    await run(memoryReports(report), warmUpRows);
    const measured: ReportMemoryRun[] = [];
    for (let index = 0; index < runs; index++) {
      const reports = memoryReports(report);
      const rawBefore = rawCsv(rows, base);
      global.gc?.();
      const loadBefore = loadavg()[0]!;
      const before = process.memoryUsage().rss;
      let peak = before;
      let atPeak = process.memoryUsage();
      const sampler = setInterval(() => {
        const usage = process.memoryUsage();
        if (usage.rss > peak) {
          peak = usage.rss;
          atPeak = usage;
        }
      }, 20);
      const started = performance.now();
      await run(reports, rows);
      const seconds = (performance.now() - started) / 1000;
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      const done = reports.current();
      const rawAfter = rawCsv(rows, base);
      const raw = {
        rows,
        seconds: (rawBefore.seconds + rawAfter.seconds) / 2,
        rowsPerSecond: (rawBefore.rowsPerSecond + rawAfter.rowsPerSecond) / 2,
        sizeMiB: rawAfter.sizeMiB,
      };
      const rowsPerSecond = (done.rowCount ?? 0) / seconds;
      measured.push({
        rows: done.rowCount ?? 0,
        sizeMiB: (done.sizeBytes ?? 0) / 2 ** 20,
        seconds,
        rowsPerSecond,
        raw,
        share: rowsPerSecond / raw.rowsPerSecond,
        peakRssGrowthMiB: (peak - before) / 2 ** 20,
        atPeakMiB: {
          heapUsed: atPeak.heapUsed / 2 ** 20,
          heapTotal: atPeak.heapTotal / 2 ** 20,
          external: atPeak.external / 2 ** 20,
          arrayBuffers: atPeak.arrayBuffers / 2 ** 20,
        },
        load: { before: loadBefore, after: loadavg()[0]! },
      });
    }
    await rm(directory, { recursive: true, force: true }).catch(() => undefined);
    const slowest = measured.reduce((worst, next) => (next.share < worst.share ? next : worst));
    const largest = measured.reduce((worst, next) => (next.peakRssGrowthMiB > worst.peakRssGrowthMiB ? next : worst));
    return {
      warmUpRows,
      runs: measured,
      rows: slowest.rows,
      sizeMiB: slowest.sizeMiB,
      seconds: slowest.seconds,
      rowsPerSecond: slowest.rowsPerSecond,
      raw: slowest.raw,
      share: slowest.share,
      peakRssGrowthMiB: largest.peakRssGrowthMiB,
      atPeakMiB: largest.atPeakMiB,
    };
  } finally {
    child.send('stop');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

export interface ReportFormatRun {
  format: ReportFormat;
  compression: ReportCompression;
  result: Awaited<ReturnType<typeof reportMemoryBenchmark>>;
}

/**
 * P3 for every format and compression of CONTRACT §23 (the CSV uncompressed included, as the reference in the same
 * run): the same rows as P3 through `runReport`, each beside the raw CSV baseline, with the file size of each.
 */
export async function reportFormatsBenchmark(
  rows = 1_000_000,
  warmUpRows = 20_000,
  runs = 1,
  log: (line: string) => void = () => undefined,
): Promise<ReportFormatRun[]> {
  const measured: ReportFormatRun[] = [];
  for (const format of REPORT_FORMATS)
    for (const compression of REPORT_COMPRESSIONS) {
      log(`P3 ${format}${compression === 'gzip' ? ' + gzip' : ''}`);
      measured.push({
        format,
        compression,
        result: await reportMemoryBenchmark(rows, warmUpRows, runs, { format, compression }),
      });
    }
  return measured;
}

/**
 * The baseline: the same rows from the same generator, each written as its CHAT columns joined with commas (lists
 * with `;`), with no filter, escaping, formula guard, stream or upload.
 */
function rawCsv(rows: number, base: number) {
  const columns = RECORD_KINDS.CHAT.columns as readonly (keyof ChatRecord)[];
  const started = performance.now();
  let bytes = 0;
  let chunk = '';
  for (let index = 0; index < rows; index++) {
    const record = chatRecord(index, base - index * 1000);
    chunk += `${columns
      .map((column) => {
        const value = record[column];
        return Array.isArray(value) ? value.join(';') : String(value ?? '');
      })
      .join(',')}\r\n`;
    if (chunk.length >= 16 * 1024) {
      bytes += Buffer.byteLength(chunk);
      chunk = '';
    }
  }
  bytes += Buffer.byteLength(chunk);
  const seconds = (performance.now() - started) / 1000;
  return { rows, seconds, rowsPerSecond: rows / seconds, sizeMiB: bytes / 2 ** 20 };
}

/** A generated CHAT record with the mix the benchmark needs: quoting, formula guards, lists. */
export function chatRecord(index: number, at: number): ChatRecord {
  const time = new Date(at).toISOString();
  return {
    chatId: `chat-${String(index).padStart(7, '0')}`,
    name: index % 50 === 0 ? `=cmd|' /C calc'!A0, "quoted" ${index}` : `Order ${index} – Anna Müller`,
    chatType: index % 3 === 0 ? 'GROUP' : 'INDIVIDUAL',
    channelId: `ch-${index % 4}`,
    externalChatId: `49151${String(index).padStart(8, '0')}`,
    isArchived: false,
    isResolved: false,
    isHighPriority: index % 7 === 0,
    autopilot: index % 2 === 0,
    botJourneyStatus: 'ACTIVE',
    lastMessageFrom: 'GUEST',
    assignedUserIds: ['user-1', 'user-2'],
    assignedTeamIds: ['team-1'],
    primaryAssigneeUserId: 'user-1',
    contactIds: [`contact-${index}`],
    stateMachineIds: [],
    currentStateIds: [],
    labelIds: ['label-1', 'label-2'],
    externalItems: [],
    createdAt: time,
    updatedAt: time,
  };
}

function memoryReports(initial: Report) {
  let report = initial;
  const store: Pick<
    ReportStore,
    'get' | 'claimRun' | 'renewRun' | 'releaseRun' | 'transition' | 'settleWindow' | 'markPublished'
  > & { current(): Report } = {
    current: () => report,
    get: async () => report,
    claimRun: async (_org, _id, now, leaseUntil, leaseOwner) => {
      if (report.status !== 'PENDING') return undefined;
      report = { ...report, status: 'PROCESSING', startedAt: now, leaseUntil, leaseOwner };
      return report;
    },
    renewRun: async () => true,
    releaseRun: async () => undefined,
    transition: async (_org, _id, from, to, changes) => {
      if (!from.includes(report.status)) return undefined;
      const { now, ...fields } = changes;
      report = { ...report, ...fields, status: to };
      return report;
    },
    settleWindow: async () => undefined,
    markPublished: async () => undefined,
  };
  return store as unknown as ReportStore & { current(): Report };
}
