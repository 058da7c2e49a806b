import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { provide, resetDeps } from '#shared/config/instances';
import { jobQueue } from '#shared/config/sqs';
import type { JobQueue } from '#shared/ports/job-queue';
import { sqsConsumer } from '#shared/queue/consumer';
import { RetryLater } from '#shared/queue/retry';

const record = (messageId: string, body: unknown, receiveCount = 1) =>
  ({
    messageId,
    receiptHandle: `handle-${messageId}`,
    body: JSON.stringify(body),
    attributes: { ApproximateReceiveCount: String(receiveCount) },
  }) as unknown as SQSRecord;

function harness(work: (body: { id: string }) => Promise<void>) {
  const delays: { handle: string; seconds: number }[] = [];
  const queue: JobQueue = {
    send: async () => undefined,
    retryAfter: async (_queue, handle, seconds) => void delays.push({ handle, seconds }),
  };
  provide(jobQueue, queue);
  const handler = sqsConsumer('jobs', v.object({ id: v.string() }), work);
  const run = (records: SQSRecord[]) =>
    handler({ Records: records } as SQSEvent, { functionName: 'test', awsRequestId: 'r' } as Context);
  return { delays, run };
}

afterEach(() => resetDeps());

describe('sqsConsumer', () => {
  it('retries a record that failed unexpectedly after a short backoff, not the whole visibility timeout', async () => {
    const { delays, run } = harness(async ({ id }) => {
      if (id !== 'ok') throw new Error('connect ECONNREFUSED');
    });

    const result = await run([record('m1', { id: 'ok' }), record('m2', { id: 'boom' }), record('m3', { id: 'x' }, 3)]);

    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'm2' }, { itemIdentifier: 'm3' }]);
    const [first, third] = delays;
    expect(first?.handle).toBe('handle-m2');
    expect(first?.seconds).toBeGreaterThanOrEqual(8);
    expect(first?.seconds).toBeLessThanOrEqual(12);
    // The third receive waits four times as long (±20 % jitter).
    expect(third?.handle).toBe('handle-m3');
    expect(third?.seconds).toBeGreaterThanOrEqual(32);
    expect(third?.seconds).toBeLessThanOrEqual(48);
  });

  it('uses the delay a use case asks for with RetryLater', async () => {
    const { delays, run } = harness(async () => {
      throw new RetryLater(42, 'later');
    });

    // A batch whose every record failed is thrown back whole (Powertools), and Lambda retries each on its own delay.
    await expect(run([record('m1', { id: 'a' })])).rejects.toThrow(/All records failed/);

    expect(delays).toEqual([{ handle: 'handle-m1', seconds: 42 }]);
  });
});
