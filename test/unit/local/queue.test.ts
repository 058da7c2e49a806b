import type { SQSEvent } from 'aws-lambda';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LocalQueue, QueueConsumer } from '#infra/local/queue';
import { eventually } from '#test/support/local-stack';

function clockAt(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('LocalQueue', () => {
  it('hides a received message for the visibility timeout, then redelivers it with a higher receive count', () => {
    const clock = clockAt();
    const queue = new LocalQueue('q', { visibilityTimeoutSeconds: 30 }, clock.now);
    queue.send('m1');

    const [first] = queue.receive(10);
    const hidden = queue.receive(10);
    clock.advance(30_000);
    const [again] = queue.receive(10);

    expect(first?.attributes.ApproximateReceiveCount).toBe('1');
    expect(hidden).toEqual([]);
    expect(again?.messageId).toBe(first?.messageId);
    expect(again?.attributes.ApproximateReceiveCount).toBe('2');
  });

  it('holds a delayed message until its delay has passed', () => {
    const clock = clockAt();
    const queue = new LocalQueue('q', { visibilityTimeoutSeconds: 30 }, clock.now);
    queue.send('later', 5);

    const early = queue.receive(1);
    clock.advance(5_000);

    expect(early).toEqual([]);
    expect(queue.receive(1).map((record) => record.body)).toEqual(['later']);
  });

  it('moves a message to the dead-letter queue once it was received maxReceiveCount times (F-4)', () => {
    const clock = clockAt();
    const dlq = new LocalQueue('dlq', { visibilityTimeoutSeconds: 30 }, clock.now);
    const queue = new LocalQueue(
      'q',
      { visibilityTimeoutSeconds: 1, maxReceiveCount: 3, deadLetterQueue: dlq },
      clock.now,
    );
    queue.send('poison');

    const receipts = [];
    for (let attempt = 0; attempt < 4; attempt++) {
      receipts.push(queue.receive(1).length);
      clock.advance(1_000);
    }

    expect(receipts).toEqual([1, 1, 1, 0]);
    expect(queue.size).toBe(0);
    expect(dlq.peek()).toEqual(['poison']);
  });

  it('ignores a delete with a stale receipt handle', () => {
    const clock = clockAt();
    const queue = new LocalQueue('q', { visibilityTimeoutSeconds: 1 }, clock.now);
    queue.send('m');
    const [first] = queue.receive(1);
    clock.advance(1_000);
    queue.receive(1);

    queue.delete(first!.receiptHandle);

    expect(queue.size).toBe(1);
  });

  it('delivers copies (duplicateDeliveries) without a consumer woken by them receiving a message twice at once', () => {
    const queue = new LocalQueue('q', { visibilityTimeoutSeconds: 30 });
    for (let index = 0; index < 20; index++) queue.send(`m${index}`);
    queue.duplicateDeliveries(1, () => 0);
    const receipts: { messageId: string; receiveCount: string }[] = [];
    // A consumer that receives whenever the queue notifies, as QueueConsumer does: a copy sent from inside a
    // receive used to wake it while that receive still held the rest of the visible messages.
    let nested = 0;
    queue.onMessage(() => {
      if (nested++ > 50) return;
      for (const record of queue.receive(1))
        receipts.push({ messageId: record.messageId, receiveCount: record.attributes.ApproximateReceiveCount });
    });
    for (const record of queue.receive(10))
      receipts.push({ messageId: record.messageId, receiveCount: record.attributes.ApproximateReceiveCount });

    const ids = receipts.map((receipt) => receipt.messageId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(receipts.every((receipt) => receipt.receiveCount === '1')).toBe(true);
    expect(queue.duplicated).toBeGreaterThan(0);
  });
});

describe('QueueConsumer', () => {
  it('deletes the records that succeeded and redelivers only the reported failures (F-2)', async () => {
    const queue = new LocalQueue('q', { visibilityTimeoutSeconds: 0.05 });
    for (let index = 0; index < 10; index++) queue.send(`m${index}`);
    const seen: string[] = [];
    const consumer = new QueueConsumer(
      queue,
      async (event: SQSEvent) => {
        seen.push(...event.Records.map((record) => record.body));
        const failing = event.Records.filter(
          (record) => record.body === 'm3' && record.attributes.ApproximateReceiveCount === '1',
        );
        return { batchItemFailures: failing.map((record) => ({ itemIdentifier: record.messageId })) };
      },
      { batchSize: 10, maxConcurrency: 1 },
    );

    await eventually(() => expect(queue.size).toBe(0));
    await consumer.stop();

    expect(seen.filter((body) => body === 'm3')).toHaveLength(2);
    expect(seen).toHaveLength(11);
  });

  it('retries the whole batch when the handler throws (F-3)', async () => {
    const queue = new LocalQueue('q', { visibilityTimeoutSeconds: 0.05 });
    queue.send('a');
    queue.send('b');
    let calls = 0;
    const consumer = new QueueConsumer(
      queue,
      async () => {
        calls += 1;
        if (calls === 1) throw new Error('boom');
        return { batchItemFailures: [] };
      },
      { batchSize: 10, maxConcurrency: 1 },
    );

    await eventually(() => expect(queue.size).toBe(0));
    await consumer.stop();

    expect(calls).toBe(2);
  });

  it('treats an empty or unknown itemIdentifier as a failure of the whole batch', async () => {
    const queue = new LocalQueue('q', { visibilityTimeoutSeconds: 60 });
    queue.send('a');
    queue.send('b');
    let calls = 0;
    const consumer = new QueueConsumer(
      queue,
      async () => {
        calls += 1;
        return { batchItemFailures: [{ itemIdentifier: '' }] };
      },
      { batchSize: 10, maxConcurrency: 1 },
    );

    await eventually(() => expect(calls).toBe(1));
    await consumer.stop();

    expect(queue.size).toBe(2);
  });

  it('conserves messages: every message is either processed once successfully or dead-lettered (F-4 property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.boolean(), { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 1, max: 10 }),
        async (poison, batchSize) => {
          const dlq = new LocalQueue('dlq', { visibilityTimeoutSeconds: 30 });
          const queue = new LocalQueue('q', {
            visibilityTimeoutSeconds: 0.01,
            maxReceiveCount: 2,
            deadLetterQueue: dlq,
          });
          for (const [index, bad] of poison.entries()) queue.send(JSON.stringify({ index, bad }));
          const done = new Set<number>();
          const consumer = new QueueConsumer(
            queue,
            async (event) => {
              const failures = [];
              for (const record of event.Records) {
                const { index, bad } = JSON.parse(record.body) as { index: number; bad: boolean };
                if (bad) failures.push({ itemIdentifier: record.messageId });
                else done.add(index);
              }
              return { batchItemFailures: failures };
            },
            { batchSize, maxConcurrency: 2 },
          );
          await eventually(() => {
            queue.receive(0);
            expect(queue.size).toBe(0);
          });
          await consumer.stop();

          expect(done.size + dlq.size).toBe(poison.length);
          expect(dlq.size).toBe(poison.filter(Boolean).length);
        },
      ),
      { numRuns: 15 },
    );
  });
});

describe('LocalQueue dead letters', () => {
  it('keeps a dead letter’s first enqueue time, first receive and receive count, and counts visible and in flight', () => {
    const clock = clockAt();
    const dlq = new LocalQueue('q-dlq', { visibilityTimeoutSeconds: 30 }, clock.now);
    const queue = new LocalQueue(
      'q',
      { visibilityTimeoutSeconds: 1, maxReceiveCount: 2, deadLetterQueue: dlq },
      clock.now,
    );
    queue.send('poison');
    const sentAt = clock.now();
    queue.receive(1);
    clock.advance(1_000);
    queue.receive(1);
    clock.advance(1_000);
    queue.receive(1);
    clock.advance(5_000);

    const counts = dlq.counts();
    const [dead] = dlq.receive(1, 0);
    const afterLook = dlq.counts();

    expect(queue.size).toBe(0);
    expect(counts).toEqual({ visible: 1, notVisible: 0 });
    expect(dlq.oldestEnqueuedAt()).toBe(sentAt);
    expect(dead?.body).toBe('poison');
    expect(dead?.attributes.SentTimestamp).toBe(String(sentAt));
    expect(dead?.attributes.ApproximateFirstReceiveTimestamp).toBe(String(sentAt));
    expect(dead?.attributes.ApproximateReceiveCount).toBe('3');
    expect(afterLook).toEqual({ visible: 1, notVisible: 0 });
  });
});
