import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as v from 'valibot';
import { accessStatus } from '#shared/config/access';
import { jobQueue } from '#shared/config/sqs';
import { OrgGoneError, OrgSuspendedError } from '#shared/errors';
import { logger } from '#shared/observability/logger';
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

/**
 * A Lambda handler for one of the service's queues: Powertools batch processing with partial batch failures,
 * each body validated with `schema`. A record that throws is reported as a failure (and redelivered, until the DLQ);
 * RetryLater also sets the message's visibility, which is the retry's backoff.
 */
export function sqsConsumer<S extends v.GenericSchema>(
  queue: string,
  schema: S,
  work: (body: v.InferOutput<S>, receiveCount: number) => Promise<void>,
) {
  const recordHandler = async (record: SQSRecord) => {
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
    try {
      // Read afresh for every job (shared/domain/auth/access-status.ts): no cache lets work start once erasure began.
      const status = orgId ? await accessStatus().workStatus(orgId) : 'active';
      if (status === 'gone') return drop(orgId);
      if (status === 'suspended') return await putBack(orgId);
      await work(body.output, receiveCount);
    } catch (error) {
      // The network gate refused an organisation the job's use case reached (a suspension or an erasure newer than the
      // check above): the job waits, or is dropped, the same way.
      if (error instanceof OrgGoneError) return drop(orgId);
      if (error instanceof OrgSuspendedError) return await putBack(orgId);
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
    }
  };
  return (
    middy<SQSEvent, SQSBatchResponse>()
      .use(injectLambdaContext(logger, { resetKeys: true }))
      // A processor per invocation: it holds the batch's records and failures, and one Lambda instance runs one
      // invocation at a time, but the local stack runs many at once in one process — a shared processor would report
      // one batch's failures in another's answer, and a failed record would be deleted as if it had succeeded.
      .handler((event: SQSEvent, context: Context) =>
        processPartialResponse(event, recordHandler, new BatchProcessor(EventType.SQS), { context }),
      )
  );
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
