import { randomUUID } from 'node:crypto';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as v from 'valibot';
import { accessStatus } from '#shared/config/access';
import { orgShares } from '#shared/config/org-shares';
import { jobQueue } from '#shared/config/sqs';
import { OrgGoneError, OrgSuspendedError } from '#shared/errors';
import { QUEUES } from '#shared/events/catalog';
import { logger } from '#shared/observability/logger';
import { deferredJob, type InvocationShares, OrgShareExceeded } from './org-share.ts';
import { backoffSeconds, RetryLater } from './retry.ts';

/** First retry delay of a record that failed unexpectedly; it doubles per receive (10 s, 20 s, 40 s … 15 min). */
const FAILURE_BACKOFF_BASE_SECONDS = 10;

/** How long the work of a suspended organisation waits before it is looked at again (CONTRACT §17). */
export const SUSPENDED_WORK_DELAY_SECONDS = 300;

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

/**
 * A Lambda handler for one of the service's queues: Powertools batch processing with partial batch failures,
 * each body validated with `schema`. A record that throws is reported as a failure (and redelivered, until the DLQ);
 * RetryLater also sets the message's visibility, which is the retry's backoff.
 */
export function sqsConsumer<S extends v.GenericSchema>(
  queue: string,
  schema: S,
  work: (body: v.InferOutput<S>, receiveCount: number, job: JobContext) => Promise<void>,
) {
  const def = QUEUES.find((candidate) => candidate.name === queue);
  const recordHandler = async (record: SQSRecord, shares: InvocationShares | undefined) => {
    const receiveCount = Number(record.attributes.ApproximateReceiveCount ?? '1');
    const body = parseBody(schema, record.body);
    if (!body.success) {
      // No retry can fix it: make it visible again at once, so that the redrive policy moves it to the DLQ (and its
      // alarm fires) after maxReceiveCount quick receives instead of that many visibility timeouts.
      logger.error('poison message: the body does not match the queue schema; it goes to the dead-letter queue', {
        queue,
        messageId: record.messageId,
        receiveCount,
        issues: body.issues,
      });
      await jobQueue().retryAfter(queue, record.receiptHandle, 0);
      throw new Error(`poison message ${record.messageId}`);
    }
    // Nothing is done for a suspended organisation, and nothing is lost: the job goes back to its queue as a new
    // message (its receive count starts again, so a long suspension never moves it to the DLQ) before this one is
    // deleted. A duplicate after a failed delete is harmless: every consumer is idempotent.
    const putBack = async (orgId: string | undefined) => {
      await jobQueue().send(queue, JSON.parse(record.body), { delaySeconds: SUSPENDED_WORK_DELAY_SECONDS });
      logger.info('organisation suspended: job put back', { queue, messageId: record.messageId, orgId });
    };
    // Erased means erased (CONTRACT §17): the job of an organisation being erased, or no longer there, is dropped —
    // never worked on (it would write the organisation's items again) nor put back.
    const drop = (orgId: string | undefined) =>
      logger.info('organisation erased: job dropped', { queue, messageId: record.messageId, orgId });
    const orgId = orgOf(body.output);
    // The organisation's place in this invocation while this job runs, once it waits on the outside (org-share.ts).
    let leave: (() => Promise<void>) | undefined;
    const job: JobContext = {
      admit: async () => {
        if (shares && orgId && !leave) leave = await shares.admit(orgId);
      },
      checkShare: () => {
        if (shares && orgId && !leave) shares.checkShare(orgId);
      },
    };
    try {
      // Read afresh for every job (shared/domain/auth/access-status.ts): no cache lets work start once erasure began.
      const status = orgId ? await accessStatus().workStatus(orgId) : 'active';
      if (status === 'gone') return drop(orgId);
      if (status === 'suspended') return await putBack(orgId);
      if (def?.orgShare === 'every-job') await job.admit();
      await work(body.output, receiveCount, job);
    } catch (error) {
      // The network gate refused an organisation the job's use case reached (a suspension or an erasure newer than the
      // check above): the job waits, or is dropped, the same way.
      if (error instanceof OrgGoneError) return drop(orgId);
      if (error instanceof OrgSuspendedError) return await putBack(orgId);
      // Its organisation holds its share of this pool: the job waits for one of its own organisation's invocations to
      // end, as a new message (not a failure: nothing counts toward the DLQ).
      if (error instanceof OrgShareExceeded) {
        const { job: copy, delaySeconds } = deferredJob(JSON.parse(record.body), error);
        await jobQueue().send(queue, copy as { orgId: string }, { delaySeconds });
        logger.debug('organisation at its share of the pool: job put back', {
          queue,
          messageId: record.messageId,
          orgId,
        });
        return;
      }
      if (error instanceof RetryLater) {
        logger.info('record retried later', {
          queue,
          messageId: record.messageId,
          delaySeconds: error.delaySeconds,
          reason: error.message,
        });
        await jobQueue().retryAfter(queue, record.receiptHandle, error.delaySeconds);
      } else {
        // An unexpected failure (often a dependency's brief outage) is retried after a short backoff, not after the
        // whole visibility timeout (6 × the function's timeout; 90 minutes for reports). The redrive policy still
        // moves a message that keeps failing to the DLQ after maxReceiveCount receives.
        const delaySeconds = backoffSeconds(FAILURE_BACKOFF_BASE_SECONDS, receiveCount);
        logger.error('record failed', {
          queue,
          messageId: record.messageId,
          receiveCount,
          delaySeconds,
          error: error as Error,
        });
        await jobQueue()
          .retryAfter(queue, record.receiptHandle, delaySeconds)
          .catch((visibilityError: unknown) =>
            logger.warn('retry delay not set; the message returns after its visibility timeout', {
              queue,
              messageId: record.messageId,
              error: visibilityError as Error,
            }),
          );
      }
      throw error;
    } finally {
      await leave?.();
    }
  };
  return (
    middy<SQSEvent, SQSBatchResponse>()
      .use(injectLambdaContext(logger, { resetKeys: true }))
      // A processor per invocation: it holds the batch's records and failures, and one Lambda instance runs one
      // invocation at a time, but the local stack runs many at once in one process — a shared processor would report
      // one batch's failures in another's answer, and a failed record would be deleted as if it had succeeded.
      .handler(async (event: SQSEvent, context: Context) => {
        // The organisations' places this invocation takes in the pool, given back when it ends (org-share.ts).
        const shares = orgShares(queue)?.forInvocation(context?.awsRequestId ?? randomUUID(), deadlineOf(context, def));
        try {
          return await processPartialResponse(
            event,
            (record: SQSRecord) => recordHandler(record, shares),
            new BatchProcessor(EventType.SQS),
            { context },
          );
        } finally {
          await shares?.releaseAll();
        }
      })
  );
}

/** When Lambda cuts the invocation at the latest. */
function deadlineOf(context: Context | undefined, def: { timeoutSeconds: number } | undefined): number {
  const remaining =
    typeof context?.getRemainingTimeInMillis === 'function'
      ? context.getRemainingTimeInMillis()
      : (def?.timeoutSeconds ?? 900) * 1000;
  return Date.now() + remaining;
}

function parseBody<S extends v.GenericSchema>(
  schema: S,
  text: string,
): { success: true; output: v.InferOutput<S> } | { success: false; issues: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { success: false, issues: ['not valid JSON'] };
  }
  const result = v.safeParse(schema, json);
  if (result.success) return { success: true, output: result.output };
  return {
    success: false,
    issues: result.issues.map((issue) => `${v.getDotPath(issue) ?? '(body)'}: ${issue.message}`),
  };
}
