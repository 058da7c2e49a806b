import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as v from 'valibot';
import { jobQueue } from '#shared/config/sqs';
import { logger } from '#shared/observability/logger';
import { RetryLater } from './retry.ts';

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
  const processor = new BatchProcessor(EventType.SQS);
  const recordHandler = async (record: SQSRecord) => {
    const body = v.parse(schema, JSON.parse(record.body));
    const receiveCount = Number(record.attributes.ApproximateReceiveCount ?? '1');
    try {
      await work(body, receiveCount);
    } catch (error) {
      if (error instanceof RetryLater) {
        logger.info('record retried later', {
          queue,
          messageId: record.messageId,
          delaySeconds: error.delaySeconds,
          reason: error.message,
        });
        await jobQueue().retryAfter(queue, record.receiptHandle, error.delaySeconds);
      } else {
        logger.error('record failed', { queue, messageId: record.messageId, error: error as Error });
      }
      throw error;
    }
  };
  return middy<SQSEvent, SQSBatchResponse>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .handler((event: SQSEvent, context: Context) =>
      processPartialResponse(event, recordHandler, processor, { context }),
    );
}
