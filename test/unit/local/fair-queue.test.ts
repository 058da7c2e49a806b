import { describe, expect, it } from 'vitest';
import { LocalQueue, QueueConsumer } from '#infra/local/queue';
import { eventually } from '#test/support/local-stack';

function clockAt(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

/** A queue with a long visibility timeout, so received messages stay in flight until the test settles them. */
function fairQueue() {
  const clock = clockAt();
  const queue = new LocalQueue('q', { visibilityTimeoutSeconds: 3600 }, clock.now);
  return { clock, queue };
}

const bodies = (queue: LocalQueue, max: number) => queue.receive(max).map((record) => record.body);

/** Puts `count` of the tenant's messages in flight at once (received, not deleted); no processing time passes. */
function inFlight(queue: LocalQueue, tenant: string, count: number) {
  for (let index = 0; index < count; index++) queue.send(`${tenant}-flight-${index}`, 0, tenant);
  const records = queue.receive(count);
  expect(records).toHaveLength(count);
  return records;
}

describe('LocalQueue fair-queue semantics (SQS fair queues, CONTRACT §18)', () => {
  it('keeps arrival order while no tenant is past a threshold: 29 in flight is below the minimum of 30', () => {
    const { queue } = fairQueue();
    inFlight(queue, 'A', 29);
    queue.send('A-1', 0, 'A');
    queue.send('B-1', 0, 'B');

    expect(bodies(queue, 1)).toEqual(['A-1']);
  });

  it('deprioritises a tenant with at least 30 in flight and more than 10 % of all in flight', () => {
    const { queue } = fairQueue();
    inFlight(queue, 'A', 30);
    queue.send('A-1', 0, 'A');
    queue.send('A-2', 0, 'A');
    queue.send('B-1', 0, 'B');

    expect(bodies(queue, 1)).toEqual(['B-1']);
    expect(queue.tenants().find((tenant) => tenant.tenant === 'A')).toMatchObject({ inFlight: 30, noisy: true });
  });

  it('does not deprioritise 30 in flight that are no more than 10 % of the queue in flight', () => {
    const { queue } = fairQueue();
    inFlight(queue, 'A', 30);
    // 300 other messages in flight, each of its own tenant (no MessageGroupId): A holds 30 / 330 ≈ 9 %.
    for (let index = 0; index < 300; index++) queue.send(`solo-${index}`);
    expect(queue.receive(300)).toHaveLength(300);
    queue.send('A-1', 0, 'A');
    queue.send('B-1', 0, 'B');

    expect(bodies(queue, 1)).toEqual(['A-1']);
  });

  it("deprioritises a tenant with more than 10 % of the consumers' recent processing time, even with few in flight", () => {
    const { clock, queue } = fairQueue();
    // Ten tenants each processed one message for 1 s; A one message for 5 s: A has 5 / 15 of the processing time.
    for (let index = 0; index < 10; index++) queue.send(`t${index}`, 0, `T${index}`);
    queue.send('slow', 0, 'A');
    const received = queue.receive(11);
    clock.advance(1_000);
    for (const record of received.filter((record) => record.body !== 'slow')) queue.delete(record.receiptHandle);
    clock.advance(4_000);
    queue.delete(received.find((record) => record.body === 'slow')!.receiptHandle);
    queue.send('A-1', 0, 'A');
    queue.send('T1-1', 0, 'T1');

    expect(bodies(queue, 1)).toEqual(['T1-1']);
  });

  it('keeps arrival order when every tenant has at most 10 % of the processing time', () => {
    const { clock, queue } = fairQueue();
    for (let index = 0; index < 11; index++) queue.send(`t${index}`, 0, `T${index}`);
    const received = queue.receive(11);
    clock.advance(1_000);
    for (const record of received) queue.delete(record.receiptHandle);
    queue.send('T3-1', 0, 'T3');
    queue.send('T1-1', 0, 'T1');
    queue.send('T2-1', 0, 'T2');

    expect(bodies(queue, 3)).toEqual(['T3-1', 'T1-1', 'T2-1']);
  });

  it('forgets processing time older than the window', () => {
    const { clock, queue } = fairQueue();
    queue.send('slow', 0, 'A');
    queue.send('quick', 0, 'B');
    const [slow, quick] = queue.receive(2);
    clock.advance(100);
    queue.delete(quick!.receiptHandle);
    clock.advance(20_000);
    queue.delete(slow!.receiptHandle);
    queue.send('A-1', 0, 'A');
    queue.send('C-1', 0, 'C');
    expect(bodies(queue, 1)).toEqual(['C-1']);

    clock.advance(61_000);
    queue.send('D-1', 0, 'D');
    expect(bodies(queue, 1)).toEqual(['A-1']);
  });

  it("returns a noisy tenant's messages when no quiet tenant has any: nothing is dropped or held back", () => {
    const { queue } = fairQueue();
    inFlight(queue, 'A', 30);
    for (let index = 0; index < 5; index++) queue.send(`A-${index}`, 0, 'A');

    expect(bodies(queue, 10)).toEqual(['A-0', 'A-1', 'A-2', 'A-3', 'A-4']);
  });

  it('serves noisy tenants with the fewest messages in flight first', () => {
    const { queue } = fairQueue();
    inFlight(queue, 'A', 40);
    inFlight(queue, 'B', 30);
    queue.send('A-1', 0, 'A');
    queue.send('A-2', 0, 'A');
    queue.send('B-1', 0, 'B');
    queue.send('B-2', 0, 'B');

    // B has fewer in flight; after two of B's, B holds 32 against A's 40, so B's turn lasts while it has messages.
    expect(bodies(queue, 4)).toEqual(['B-1', 'B-2', 'A-1', 'A-2']);
  });

  it('keeps a detected tenant deprioritised while it holds more in flight than quiet tenants, quiet again after 5 minutes without sending', () => {
    const { clock, queue } = fairQueue();
    const flights = inFlight(queue, 'A', 30);
    // The consumer hands them back for a later retry: still in flight (invisible), no longer processing.
    for (const record of flights) queue.changeVisibility(record.receiptHandle, 3000);
    queue.send('A-1', 0, 'A');
    queue.send('B-1', 0, 'B');
    expect(bodies(queue, 1)).toEqual(['B-1']);

    // 10 of A's finish: 20 in flight is below the minimum, but still more than B's share.
    for (const record of flights.slice(0, 10)) queue.delete(record.receiptHandle);
    queue.send('B-2', 0, 'B');
    expect(bodies(queue, 1)).toEqual(['B-2']);

    clock.advance(300_000);
    queue.send('C-1', 0, 'C');
    expect(bodies(queue, 1)).toEqual(['A-1']);
  });

  it('is quiet again once its backlog is drained', () => {
    const { queue } = fairQueue();
    const flights = inFlight(queue, 'A', 30);
    for (const record of flights) queue.changeVisibility(record.receiptHandle, 3000);
    queue.send('A-1', 0, 'A');
    expect(bodies(queue, 1)).toEqual(['A-1']);
    for (const record of flights.slice(0, 10)) queue.delete(record.receiptHandle);

    queue.send('A-2', 0, 'A');
    queue.send('B-1', 0, 'B');
    // The drained backlog cleared the flag; 21 in flight do not meet the minimum again, so arrival order holds.
    expect(bodies(queue, 1)).toEqual(['A-2']);
  });

  it('counts redelivered messages back in the backlog and hands the group to the consumer and the dead-letter queue', () => {
    const clock = clockAt();
    const dlq = new LocalQueue('dlq', { visibilityTimeoutSeconds: 30 }, clock.now);
    const queue = new LocalQueue(
      'q',
      { visibilityTimeoutSeconds: 1, maxReceiveCount: 1, deadLetterQueue: dlq },
      clock.now,
    );
    queue.send('m', 0, 'org-1');
    const [record] = queue.receive(1);
    expect(record?.attributes.MessageGroupId).toBe('org-1');
    clock.advance(1_000);

    expect(queue.receive(1)).toEqual([]);
    expect(dlq.receive(1)[0]?.attributes.MessageGroupId).toBe('org-1');
  });

  it("lets a consumer pool saturated by one tenant's backlog take another tenant's message next, not after the backlog", async () => {
    const queue = new LocalQueue('q', { visibilityTimeoutSeconds: 30 });
    const order: string[] = [];
    // B's message arrives the moment the fourth of A's is processed (not when a poll notices it: under load a poll
    // can come many batches late), while A's backlog still holds 30-odd and the pool is full.
    const consumer = new QueueConsumer(
      queue,
      async (event) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        for (const record of event.Records) {
          order.push(record.body);
          if (order.length === 4) queue.send('B-1', 0, 'B');
        }
        return { batchItemFailures: [] };
      },
      { batchSize: 2, maxConcurrency: 2 },
    );
    for (let index = 0; index < 40; index++) queue.send(`A-${index}`, 0, 'A');

    await eventually(() => expect(order).toHaveLength(41), { timeoutMs: 10_000 });
    await consumer.stop();

    // B's message went out with the next batch after those in flight, not behind A's remaining 30-odd.
    const processedBefore = order.indexOf('B-1');
    expect(processedBefore).toBeLessThan(12);
  });
});
