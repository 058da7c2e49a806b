import { randomUUID } from 'node:crypto';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as v from 'valibot';
import { actingFor, foreignOrgFor } from '#shared/adapters/aws/tenant-scope';
import { accessStatus } from '#shared/config/access';
import { orgShares } from '#shared/config/org-shares';
import { jobQueue } from '#shared/config/sqs';
import { OrgGoneError, OrgSuspendedError } from '#shared/errors';
import { logger } from '#shared/observability/logger';
import { deferredJob, type InvocationShares, OrgShareExceeded } from './org-share.ts';
import { backoffSeconds, RetryLater } from './retry.ts';

/** First retry delay of a record that failed unexpectedly; it doubles per receive (10 s, 20 s, 40 s … 15 min). */
const FAILURE_BACKOFF_BASE_SECONDS = 10;

/** How long the work of a suspended organisation waits before it is looked at again (CONTRACT §17). */
export const SUSPENDED_WORK_DELAY_SECONDS = 300;

/** Lambda's longest timeout: the deadline of an invocation whose context does not say (tests). */
const LONGEST_TIMEOUT_MS = 900_000;

/** The organisation a job is for: `orgId` of the service's jobs, `organisation_id` of a bus event's detail. */
function orgOf(body: unknown): string | undefined {
  const job = body as { orgId?: unknown; detail?: { organisation_id?: unknown } } | null;
  const orgId = job?.orgId ?? job?.detail?.organisation_id;
  return typeof orgId === 'string' ? orgId : undefined;
}

/** What a job's work may ask of the invocation that runs it. */
export interface JobContext {
  /**
   * Takes the job's organisation's place in this invocation (shared/queue/org-share.ts) before the work waits on the
   * outside world; a queue whose every job waits has it taken before the work starts.
   * @throws OrgShareExceeded when the organisation holds its share of the pool: the job goes back to its queue
   */
  admit(): Promise<void>;
  /**
   * Refuses the job at once when this container refused its organisation a moment ago (no I/O): work that reads before
   * it admits calls it first.
   * @throws OrgShareExceeded
   */
  checkShare(): void;
}

/** How a consumer's jobs take their organisation's place in a shared pool (shared/queue/org-share.ts). */
export interface ConsumerOptions {
  /**
   * Where the queue's organisations share its pool (the stacks then tell the consumer the pool's size:
   * infra/aws/functions.ts): `every-job` takes the job's place before its work starts (work that waits on the outside
   * world throughout); `outside-calls` leaves it to the work, which calls `job.admit()` just before it waits on the
   * outside world (the webhook dispatchers: not for fan-outs or waits). Without shares, nothing is taken.
   * @default 'every-job'
   */
  admits?: 'every-job' | 'outside-calls';
}

/** One queue's consumer, as each of its records is handled. */
interface Consumer<S extends v.GenericSchema> {
  queue: string;
  schema: S;
  work: (body: v.InferOutput<S>, receiveCount: number, job: JobContext) => Promise<void>;
  admitsEveryJob: boolean;
}

/**
 * A Lambda handler for one of the service's queues: Powertools batch processing with partial batch failures,
 * each body validated with `schema`. A record that throws is reported as a failure (and redelivered, until the DLQ);
 * RetryLater also sets the message's visibility, which is the retry's backoff.
 */
export function sqsConsumer<S extends v.GenericSchema>(
  queue: string,
  schema: S,
  work: (body: v.InferOutput<S>, receiveCount: number, job: JobContext) => Promise<void>,
  options: ConsumerOptions = {},
) {
  const consumer: Consumer<S> = {
    queue,
    schema,
    work,
    admitsEveryJob: (options.admits ?? 'every-job') === 'every-job',
  };
  return (
    middy<SQSEvent, SQSBatchResponse>()
      .use(injectLambdaContext(logger, { resetKeys: true }))
      // A processor per invocation: it holds the batch's records and failures, and one Lambda instance runs one
      // invocation at a time, but the local stack runs many at once in one process — a shared processor would report
      // one batch's failures in another's answer, and a failed record would be deleted as if it had succeeded.
      .handler(async (event: SQSEvent, context: Context) => {
        // The organisations' places this invocation takes in the pool, given back when it ends (org-share.ts).
        const shares = orgShares(queue)?.forInvocation(context?.awsRequestId ?? randomUUID(), deadlineOf(context));
        try {
          return await processPartialResponse(
            event,
            (record: SQSRecord) => handleRecord(consumer, record, shares),
            new BatchProcessor(EventType.SQS),
            { context },
          );
        } finally {
          await shares?.releaseAll();
        }
      })
  );
}

/** One record: validated, its organisation's status checked, its work run in its organisation's place. */
async function handleRecord<S extends v.GenericSchema>(
  consumer: Consumer<S>,
  record: SQSRecord,
  shares: InvocationShares | undefined,
): Promise<void> {
  const receiveCount = Number(record.attributes.ApproximateReceiveCount ?? '1');
  const body = parseBody(consumer.schema, record.body);
  if (!body.success) return rejectPoison(consumer.queue, record, receiveCount, body.issues);
  // The organisation whose scope sent the job, else the one its body names (a bus event, Meta's inbox).
  const orgId = body.sender ?? orgOf(body.output);
  if (!orgId) return runRecord(consumer, record, receiveCount, body.output, undefined, shares);
  // Each record with its own organisation's credentials, whatever else its batch holds (CONTRACT §25).
  const target = foreignOrgFor(orgId);
  const job = target === orgId ? body.output : withOrg(body.output, target);
  return actingFor(orgId, () => runRecord(consumer, record, receiveCount, job, orgId, shares));
}

/** The job as its work sees it: the test-only fault switch may name another organisation in it (tenant-scope.ts). */
function withOrg<T>(body: T, orgId: string): T {
  const job = body as { orgId?: string; detail?: { organisation_id?: string } };
  if (orgOf(body) === orgId) return body;
  if (typeof job.orgId === 'string') return { ...job, orgId } as T;
  return { ...job, detail: { ...job.detail, organisation_id: orgId } } as T;
}

async function runRecord<S extends v.GenericSchema>(
  consumer: Consumer<S>,
  record: SQSRecord,
  receiveCount: number,
  body: v.InferOutput<S>,
  orgId: string | undefined,
  shares: InvocationShares | undefined,
): Promise<void> {
  const { queue } = consumer;
  const place = jobPlace(shares, orgId);
  try {
    // Read afresh for every job (shared/domain/auth/access-status.ts): no cache lets work start once erasure began.
    const status = orgId ? await accessStatus().workStatus(orgId) : 'active';
    if (status === 'gone') return dropJob(queue, record, orgId);
    if (status === 'suspended') return await putBack(queue, record, orgId);
    if (consumer.admitsEveryJob) await place.job.admit();
    await consumer.work(body, receiveCount, place.job);
  } catch (error) {
    if (await setAside(queue, record, orgId, error)) return;
    await retryLater(queue, record, receiveCount, error);
    throw error;
  } finally {
    await place.leave();
  }
}

/**
 * No retry can fix a body that does not match the queue's schema: it is made visible again at once, so that the
 * redrive policy moves it to the DLQ (and its alarm fires) after maxReceiveCount quick receives instead of that many
 * visibility timeouts.
 */
async function rejectPoison(queue: string, record: SQSRecord, receiveCount: number, issues: string[]): Promise<never> {
  logger.error('poison message: the body does not match the queue schema; it goes to the dead-letter queue', {
    queue,
    messageId: record.messageId,
    receiveCount,
    issues,
  });
  await jobQueue().retryAfter(queue, record.receiptHandle, 0);
  throw new Error(`poison message ${record.messageId}`);
}

/** The organisation's place in this invocation while the job runs, once it waits on the outside (org-share.ts). */
function jobPlace(shares: InvocationShares | undefined, orgId: string | undefined) {
  let leave: (() => Promise<void>) | undefined;
  const job: JobContext = {
    admit: async () => {
      if (shares && orgId && !leave) leave = await shares.admit(orgId);
    },
    checkShare: () => {
      if (shares && orgId && !leave) shares.checkShare(orgId);
    },
  };
  return { job, leave: async () => leave?.() };
}

/**
 * Nothing is done for a suspended organisation, and nothing is lost: the job goes back to its queue as a new message
 * (its receive count starts again, so a long suspension never moves it to the DLQ) before this one is deleted. A
 * duplicate after a failed delete is harmless: every consumer is idempotent.
 */
async function putBack(queue: string, record: SQSRecord, orgId: string | undefined): Promise<void> {
  await jobQueue().send(queue, JSON.parse(record.body), { delaySeconds: SUSPENDED_WORK_DELAY_SECONDS });
  logger.info('organisation suspended: job put back', { queue, messageId: record.messageId, orgId });
}

/**
 * Erased means erased (CONTRACT §17): the job of an organisation being erased, or no longer there, is dropped — never
 * worked on (it would write the organisation's items again) nor put back.
 */
function dropJob(queue: string, record: SQSRecord, orgId: string | undefined): void {
  logger.info('organisation erased: job dropped', { queue, messageId: record.messageId, orgId });
}

/**
 * A job that is not a failure: the network gate refused an organisation its use case reached (a suspension or an
 * erasure newer than the check before the work: it waits, or is dropped, the same way), or its organisation holds its
 * share of this pool (it waits for one of its own organisation's invocations to end, as a new message: nothing
 * counts toward the DLQ). True when the job was set aside so.
 */
async function setAside(queue: string, record: SQSRecord, orgId: string | undefined, error: unknown): Promise<boolean> {
  if (error instanceof OrgGoneError) {
    dropJob(queue, record, orgId);
  } else if (error instanceof OrgSuspendedError) {
    await putBack(queue, record, orgId);
  } else if (error instanceof OrgShareExceeded) {
    const { job: copy, delaySeconds } = deferredJob(JSON.parse(record.body), error);
    await jobQueue().send(queue, copy as { orgId: string }, { delaySeconds });
    logger.debug('organisation at its share of the pool: job put back', { queue, messageId: record.messageId, orgId });
  } else {
    return false;
  }
  return true;
}

/**
 * A failed record's retry: after RetryLater's delay, or — an unexpected failure, often a dependency's brief outage —
 * after a short backoff rather than the whole visibility timeout (6 × the function's timeout; 90 minutes for reports).
 * The redrive policy still moves a message that keeps failing to the DLQ after maxReceiveCount receives.
 */
async function retryLater(queue: string, record: SQSRecord, receiveCount: number, error: unknown): Promise<void> {
  const { messageId, receiptHandle } = record;
  if (error instanceof RetryLater) {
    logger.info('record retried later', { queue, messageId, delaySeconds: error.delaySeconds, reason: error.message });
    await jobQueue().retryAfter(queue, receiptHandle, error.delaySeconds);
    return;
  }
  const delaySeconds = backoffSeconds(FAILURE_BACKOFF_BASE_SECONDS, receiveCount);
  logger.error('record failed', { queue, messageId, receiveCount, delaySeconds, error: error as Error });
  await jobQueue()
    .retryAfter(queue, receiptHandle, delaySeconds)
    .catch((visibilityError: unknown) =>
      logger.warn('retry delay not set; the message returns after its visibility timeout', {
        queue,
        messageId,
        error: visibilityError as Error,
      }),
    );
}

/** When Lambda cuts the invocation at the latest (without a context, Lambda's longest timeout). */
function deadlineOf(context: Context | undefined): number {
  const remaining =
    typeof context?.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : LONGEST_TIMEOUT_MS;
  return Date.now() + remaining;
}

function parseBody<S extends v.GenericSchema>(
  schema: S,
  text: string,
): { success: true; output: v.InferOutput<S>; sender?: string } | { success: false; issues: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { success: false, issues: ['not valid JSON'] };
  }
  const result = v.safeParse(schema, json);
  // `actingFor`: the organisation whose scope sent a job of the service (shared/adapters/sqs/job-queue.ts).
  const sender = (json as { actingFor?: unknown } | null)?.actingFor;
  if (result.success)
    return { success: true, output: result.output, sender: typeof sender === 'string' ? sender : undefined };
  return {
    success: false,
    issues: result.issues.map((issue) => `${v.getDotPath(issue) ?? '(body)'}: ${issue.message}`),
  };
}
