import * as v from 'valibot';
import type { Config } from '#shared/config/env';
import { eventIdFor } from '#shared/events/domain-event';
import { logger } from '#shared/observability/logger';
import { countBusiness } from '#shared/observability/metrics';
import type { Clock } from '#shared/ports/clock';
import type { CrmStore } from '#shared/ports/crm-store';
import type { EventPublisher } from '#shared/ports/event-publisher';
import type { ReportFiles } from '#shared/ports/report-files';
import type { ReportStore } from '#shared/ports/report-store';
import { backoffSeconds, RetryLater } from '#shared/queue/retry';
import { REPORT_FILTERS } from '#shared/schemas/reports';
import { encodeReport } from './encode.ts';
import { compareForReport, compileReportFilter, type JoinView } from './filters.ts';
import {
  type ChatRecord,
  type ContactRecord,
  REPORT_TYPES,
  type RecordOf,
  type ReportType,
  recordTime,
} from './records.ts';
import { fileOf, OPEN_REPORT_STATUSES, type Report, reportContentType, reportObjectKey } from './report.ts';

export interface RunReportDeps {
  config: Pick<Config, 'reports'>;
  clock: Clock;
  reports: ReportStore;
  crm: CrmStore;
  files: ReportFiles;
  events: EventPublisher;
}

/** Records read per query page: large enough to batch the joins, small enough to keep memory flat. */
const PAGE_SIZE = 500;
/** Joined chats and contacts kept between pages (a bounded cache, so memory stays flat). */
const JOIN_CACHE_LIMIT = 20_000;

/** A run's lease on its report: renewed every third of it while the run lasts, so it ends soon after a crash. */
const RUN_LEASE_SECONDS = 60;

/**
 * Produces one report (the report worker's job). Safe to run again: a retry rewrites the same object.
 * 1. Claim the run: PENDING → PROCESSING, or a PROCESSING report whose lease ran out, in one conditional write,
 *    leased for a minute and renewed while the run lasts. A report that is gone, final or running elsewhere is
 *    skipped, so a duplicate delivery or a sweeper's re-queueing never runs a report twice at a time; a run that
 *    died (timeout, crash) loses its lease within a minute and the sweeper queues the report again.
 * 2. Page through the organisation's records of the type newest first, the date filters as key conditions;
 *    prefetch each page's joins in batches; keep the records that pass the filters.
 * 3. Stream the file into a multipart upload: the kept records → the format's encoder (CSV, JSONL, XLSX) → gzip
 *    when asked (memory flat in the row count, whatever S3's speed).
 * 4. COMPLETED with rowCount, sizeBytes, truncatedCells (XLSX cells cut to Excel's limit) and expiresAt; free the (organisation, type) window's active flag;
 *    publish `report.completed` after the record is final, then stamp it.
 * A run that fails ends its lease at once, so that its retry may claim the report.
 */
export async function runReport(deps: RunReportDeps, job: { orgId: string; reportId: string }): Promise<void> {
  const owner = crypto.randomUUID();
  const leaseFrom = (at: Date) => new Date(at.getTime() + RUN_LEASE_SECONDS * 1000).toISOString();
  const now = deps.clock.now();
  const report = await deps.reports.claimRun(job.orgId, job.reportId, now.toISOString(), leaseFrom(now), owner);
  if (!report) return;
  const heartbeat = setInterval(
    () => {
      deps.reports
        .renewRun(job.orgId, job.reportId, owner, leaseFrom(deps.clock.now()))
        .catch((error: unknown) =>
          logger.warn('report lease not renewed', { reportId: job.reportId, error: error as Error }),
        );
    },
    (RUN_LEASE_SECONDS * 1000) / 3,
  );
  try {
    await produceReport(deps, job, report);
  } catch (error) {
    await deps.reports
      .releaseRun(job.orgId, job.reportId, owner, deps.clock.now().toISOString())
      .catch((releaseError: unknown) =>
        logger.warn('report lease not released; it ends by itself', {
          reportId: job.reportId,
          error: releaseError as Error,
        }),
      );
    throw error;
  } finally {
    clearInterval(heartbeat);
  }
}

async function produceReport(deps: RunReportDeps, job: { orgId: string; reportId: string }, report: Report) {
  const type = report.reportType as ReportType;
  if (!REPORT_TYPES.includes(type)) throw new Error(`unknown report type ${report.reportType}`);
  // The schema of this one type: the others are never built in the worker (REPORT_FILTERS builds on first read).
  const body = v.parse(REPORT_FILTERS[type], { reportType: type, ...report.filters });
  const filter = compileReportFilter(type, body as never);
  let rowCount = 0;
  const batches = async function* (this: void): AsyncGenerator<RecordOf<ReportType>[]> {
    const joins = new JoinCache(deps.crm, job.orgId);
    // The index orders ties by the id's UTF-8 bytes; the file wants code-unit order, so each group of records with
    // the same time is sorted before it is written (groups are small; memory stays flat).
    let tie: RecordOf<ReportType>[] = [];
    let tieTime: string | undefined;
    const flushTie = (into: RecordOf<ReportType>[]) => {
      if (tie.length > 1) tie.sort((a, b) => compareForReport(type, a as never, b as never));
      for (const record of tie) into.push(record);
      tie = [];
    };
    for await (const page of deps.crm.pages(job.orgId, type, filter.range, PAGE_SIZE)) {
      const view = await joins.prepare(type, page, filter.joins);
      const batch: RecordOf<ReportType>[] = [];
      for (const record of page) {
        if (!filter.keep(record as never, view)) continue;
        const time = recordTime(type, record as never);
        if (time !== tieTime) {
          flushTie(batch);
          tieTime = time;
        }
        tie.push(record);
        rowCount += 1;
      }
      if (batch.length) yield batch;
    }
    const last: RecordOf<ReportType>[] = [];
    flushTie(last);
    if (last.length) yield last;
  };
  const { format, compression } = fileOf(report);
  const objectKey = reportObjectKey(job.orgId, job.reportId, format, compression);
  // The upload pulls the file as it sends it: producing waits while its part buffers are all on their way.
  const tally = { truncatedCells: 0 };
  const file = encodeReport(type, format, compression, batches(), { tally });
  const { sizeBytes } = await deps.files.upload(objectKey, file, reportContentType(format, compression));

  const completedAt = deps.clock.now();
  const completed = await deps.reports.transition(job.orgId, job.reportId, ['PROCESSING'], 'COMPLETED', {
    now: completedAt.toISOString(),
    completedAt: completedAt.toISOString(),
    rowCount,
    sizeBytes,
    truncatedCells: tally.truncatedCells,
    objectKey,
    expiresAt: new Date(completedAt.getTime() + deps.config.reports.retentionSeconds * 1000).toISOString(),
  });
  if (!completed) return;
  countBusiness('reportsCompleted');
  logger.info('report completed', {
    reportId: job.reportId,
    reportType: type,
    rowCount,
    sizeBytes,
    truncatedCells: tally.truncatedCells,
  });
  await deps.reports.settleWindow(job.orgId, type, job.reportId);
  await announceReport(deps, completed);
}

/** Fails an open report (timeout, dead letter) and announces it once. */
export async function failReport(
  deps: Pick<RunReportDeps, 'clock' | 'reports' | 'events'>,
  report: Report,
  error: { code: 'REPORT_TIMEOUT' | 'INTERNAL'; message: string },
) {
  const failed = await deps.reports.transition(report.organisationId, report.reportId, OPEN_REPORT_STATUSES, 'FAILED', {
    now: deps.clock.now().toISOString(),
    completedAt: deps.clock.now().toISOString(),
    error,
  });
  if (!failed) return undefined;
  countBusiness('reportsFailed');
  await deps.reports.settleWindow(report.organisationId, report.reportType, report.reportId);
  await announceReport(deps, failed);
  return failed;
}

/** Publishes the final state's event, then stamps it; the sweeper republishes what a crash left unstamped. */
export async function announceReport(deps: Pick<RunReportDeps, 'clock' | 'reports' | 'events'>, report: Report) {
  const completed = report.status === 'COMPLETED';
  const type = completed ? ('report.completed' as const) : ('report.failed' as const);
  await deps.events.publish([
    {
      eventId: eventIdFor(type, report.reportId),
      type,
      organisationId: report.organisationId,
      occurredAt: report.completedAt ?? deps.clock.now().toISOString(),
      data: {
        report_id: report.reportId,
        report_type: report.reportType,
        organisation_id: report.organisationId,
        schedule_id: report.scheduleId ?? null,
        ...(completed
          ? { row_count: report.rowCount, truncatedCells: report.truncatedCells ?? 0 }
          : { error: report.error }),
      },
    },
  ]);
  await deps.reports.markPublished(report.organisationId, report.reportId, deps.clock.now().toISOString());
}

/** Prefetches, per page and in batches, the chats and contacts a filter's joins need, with a bounded cache. */
class JoinCache {
  #chats = new Map<string, ChatRecord | null>();
  #contacts = new Map<string, ContactRecord | null>();
  #chatIdsOfContact = new Map<string, string[]>();

  constructor(
    private readonly crm: CrmStore,
    private readonly orgId: string,
  ) {}

  async prepare(
    type: ReportType,
    page: RecordOf<ReportType>[],
    needs: { chatById: boolean; contactsOfChat: boolean; chatsOfContact: boolean },
  ): Promise<JoinView> {
    const records = page as unknown as Record<string, unknown>[];
    // A CHAT page's own records answer its joins; keep them only when a join will ask (a bounded Map that evicts
    // from the front costs more per insert as it churns: a third of a report's time when nothing needed it).
    if (type === 'CHAT' && (needs.chatById || needs.contactsOfChat))
      for (const chat of records as unknown as ChatRecord[]) this.#remember(this.#chats, chat.chatId, chat);
    if (needs.chatById || needs.contactsOfChat) {
      const chatIds = records.map((record) => record.chatId).filter((id): id is string => typeof id === 'string');
      await this.#fetch(
        this.#chats,
        chatIds,
        (ids) => this.crm.getChats(this.orgId, ids),
        (chat) => chat.chatId,
      );
    }
    if (needs.contactsOfChat) {
      const contactIds = records.flatMap((record) => {
        const chat = type === 'CHAT' ? record : this.#chats.get(String(record.chatId ?? ''));
        return ((chat as ChatRecord | null | undefined)?.contactIds ?? []) as string[];
      });
      await this.#fetch(
        this.#contacts,
        contactIds,
        (ids) => this.crm.getContacts(this.orgId, ids),
        (contact) => contact.contactId,
      );
    }
    if (needs.chatsOfContact) {
      const contactIds = records
        .map((record) => String(record.contactId))
        .filter((id) => !this.#chatIdsOfContact.has(id));
      const found = contactIds.length
        ? await this.crm.chatIdsOfContacts(this.orgId, contactIds)
        : new Map<string, string[]>();
      for (const id of contactIds) this.#remember(this.#chatIdsOfContact, id, found.get(id) ?? []);
    }
    return {
      chat: (chatId) => this.#chats.get(chatId) ?? undefined,
      contactsOfChat: (chatId) =>
        (this.#chats.get(chatId)?.contactIds ?? []).flatMap((contactId) => this.#contacts.get(contactId) ?? []),
      chatIdsOfContact: (contactId) => this.#chatIdsOfContact.get(contactId) ?? [],
    };
  }

  async #fetch<R>(
    cache: Map<string, R | null>,
    ids: string[],
    load: (ids: string[]) => Promise<R[]>,
    idOf: (record: R) => string,
  ) {
    const missing = [...new Set(ids)].filter((id) => !cache.has(id));
    if (missing.length === 0) return;
    const found = new Map((await load(missing)).map((record) => [idOf(record), record]));
    for (const id of missing) this.#remember(cache, id, found.get(id) ?? null);
  }

  #remember<V>(cache: Map<string, V>, key: string, value: V) {
    if (cache.size >= JOIN_CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(key, value);
  }
}

/**
 * Receives of a report job before its message goes to the dead-letter queue: the report-requests queue's
 * maxReceiveCount (infra/aws/functions.ts), on whose last receive the worker marks the report FAILED.
 */
export const REPORT_REQUEST_RECEIVES = 5;

/**
 * The worker's entry: runs the report; a failure is retried with backoff, and on the queue's last receive the
 * report is marked FAILED first (its message then goes to the dead-letter queue).
 */
export async function processReportJob(
  deps: RunReportDeps & { config: Pick<Config, 'reports' | 'groups'> },
  job: { orgId: string; reportId: string },
  receiveCount: number,
  maxReceiveCount: number,
): Promise<void> {
  try {
    await runReport(deps, job);
  } catch (error) {
    logger.error('report run failed', { reportId: job.reportId, receiveCount, error: error as Error });
    if (receiveCount >= maxReceiveCount) {
      const report = await deps.reports.get(job.orgId, job.reportId);
      if (report)
        await failReport(deps, report, { code: 'REPORT_TIMEOUT', message: 'the report could not be produced' });
      throw error;
    }
    throw new RetryLater(backoffSeconds(deps.config.groups.retryBaseSeconds, receiveCount), (error as Error).message);
  }
}
