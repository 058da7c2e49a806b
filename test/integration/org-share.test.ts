import type { SQSEvent } from 'aws-lambda';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { lambdaContext } from '#infra/local/lambda';
import { LocalQueue, QueueConsumer } from '#infra/local/queue';
import { DynamoPoolLeases } from '#shared/adapters/dynamodb/pool-leases';
import { accessStatus } from '#shared/config/access';
import { resetConfig } from '#shared/config/env';
import { provide, resetDeps } from '#shared/config/instances';
import { poolLeases } from '#shared/config/org-shares';
import { jobQueue } from '#shared/config/sqs';
import { poolSizeVariable } from '#shared/events/catalog';
import type { Job } from '#shared/ports/job-queue';
import { sqsConsumer } from '#shared/queue/consumer';
import { OrgShares, orgShareOf } from '#shared/queue/org-share';
import { useDynamo } from '#test/support/dynamo';
import { eventually } from '#test/support/eventually';

const ORG = (n: number) => `0b6e8f7a-1c2d-4e3f-8a9b-${String(n).padStart(12, '0')}`;
const QUIET = ORG(99);
/** A queue whose every job waits on the outside world (Meta), batches of 10: the message sender's. */
const QUEUE = 'outbound-messages';

/**
 * CONTRACT §18, issue 35: no organisation holds more than its share of a shared pool — a quarter of it — counted across
 * containers with leases in the table; a job over its organisation's share goes back to the queue (a new message: no
 * receive is counted toward the DLQ) and runs once one of its own organisation's invocations ends.
 */
describe("organisations' shares of a shared worker pool", () => {
  const table = useDynamo();
  afterEach(() => {
    delete process.env[poolSizeVariable(QUEUE)];
    resetConfig();
    resetDeps();
  });

  it('is a quarter of the pool, at least one', () => {
    expect([1, 4, 6, 10, 12, 50].map(orgShareOf)).toEqual([1, 1, 1, 2, 3, 12]);
  });

  it.each([4, 50])(
    'never lets one organisation hold more than its share of %i leases across containers, takes back a crashed invocation’s, and leaves another organisation alone',
    async (poolSize) => {
      const leases = new DynamoPoolLeases(table.db, table.tableName);
      const pool = `lease-test-${poolSize}`;
      const share = orgShareOf(poolSize);
      // Four containers, each with its own hints, ask for twice the pool at once.
      const containers = Array.from({ length: 4 }, () => new OrgShares(pool, poolSize, leases));
      const deadline = Date.now() + 60_000;
      const answers = await Promise.all(
        Array.from({ length: 2 * poolSize }, (_, index) =>
          containers[index % 4]!.take(ORG(1), `inv-${index}`, deadline).then((taken) => ({ index, taken })),
        ),
      );
      const taken = answers.filter((answer) => answer.taken);
      expect(taken).toHaveLength(share);
      expect(await leases.held(ORG(1), pool, Date.now())).toBe(share);
      // Another organisation is untouched by the first one's share.
      expect(await new OrgShares(pool, poolSize, leases).take(ORG(2), 'other', deadline)).toBe(true);

      // One invocation ends and gives its place back: the next one takes it.
      await containers[taken[0]!.index % 4]!.give(ORG(1), `inv-${taken[0]!.index}`);
      const fresh = new OrgShares(pool, poolSize, leases);
      expect(await fresh.take(ORG(1), 'next', deadline)).toBe(true);
      expect(await fresh.take(ORG(1), 'one-more', deadline)).toBe(false);

      // Invocations that crashed never give theirs back: each place frees itself when its lease ends.
      const crashedPool = `${pool}-crashed`;
      const ended = Date.now() - 10_000; // deadline + margin already past
      for (let index = 0; index < share; index++) {
        expect(await new OrgShares(crashedPool, poolSize, leases).take(ORG(3), `crashed-${index}`, ended)).toBe(true);
      }
      expect(await new OrgShares(crashedPool, poolSize, leases).take(ORG(3), 'after-crash', deadline)).toBe(true);
      expect(await leases.held(ORG(3), crashedPool, Date.now())).toBe(1);
    },
  );

  it.each([
    { poolSize: 4, noisy: 1 },
    { poolSize: 4, noisy: 3 },
    { poolSize: 50, noisy: 3 },
  ])(
    'runs a quiet organisation’s jobs at once while $noisy organisation(s) flood a pool of $poolSize with slow jobs, each holding at most its share, losing none',
    async ({ poolSize, noisy }) => {
      process.env[poolSizeVariable(QUEUE)] = String(poolSize);
      resetConfig();
      resetDeps();
      const queue = new LocalQueue(QUEUE, { visibilityTimeoutSeconds: 180, maxReceiveCount: 5 });
      provide(poolLeases, new DynamoPoolLeases(table.db, table.tableName));
      provide(accessStatus, { workStatus: async () => 'active' } as unknown as ReturnType<typeof accessStatus>);
      provide(jobQueue, {
        send: async (_name: string, body: Job, options?: { delaySeconds?: number }) => {
          queue.send(JSON.stringify(body), options?.delaySeconds ?? 0, body.orgId);
        },
        retryAfter: async () => undefined,
      });

      // The noisy organisations' jobs wait 1.5 s on the outside world, the quiet one's 20 ms.
      const SLOW_MS = 1_500;
      const runs = new Map<string, number>();
      const started = new Map<string, number>();
      const finished = new Map<string, number>();
      const handler = sqsConsumer(
        QUEUE,
        v.object({ orgId: v.string(), chatId: v.string(), messageId: v.string() }),
        async (job, _receiveCount) => {
          started.set(job.messageId, performance.now());
          runs.set(job.messageId, (runs.get(job.messageId) ?? 0) + 1);
          await new Promise((resolve) => setTimeout(resolve, job.orgId === QUIET ? 20 : SLOW_MS));
          finished.set(job.messageId, performance.now());
        },
      );
      // Each noisy organisation's hold on each invocation: from its first job's start there to its last job's end.
      const holds: { orgId: string; start: number; end: number }[] = [];
      const consumer = new QueueConsumer(
        queue,
        async (event: SQSEvent) => {
          const jobs = event.Records.map((record) => JSON.parse(record.body) as { orgId: string; messageId: string });
          const before = jobs.map((job) => runs.get(job.messageId) ?? 0);
          const result = await handler(event, lambdaContext(QUEUE, 30_000));
          // A job whose work ran during this invocation ran in it (a put-back copy comes back seconds later).
          const ran = jobs.filter(
            (job, index) => job.orgId !== QUIET && (runs.get(job.messageId) ?? 0) > before[index]!,
          );
          for (const orgId of new Set(ran.map((job) => job.orgId))) {
            const own = ran.filter((job) => job.orgId === orgId);
            holds.push({
              orgId,
              start: Math.min(...own.map((job) => started.get(job.messageId)!)),
              end: Math.max(...own.map((job) => finished.get(job.messageId)!)),
            });
          }
          return result;
        },
        { batchSize: 10, maxConcurrency: poolSize },
      );
      const sentAt = new Map<string, number>();
      const send = (orgId: string, messageId: string) => {
        sentAt.set(messageId, performance.now());
        queue.send(JSON.stringify({ orgId, chatId: 'c', messageId }), 0, orgId);
      };
      try {
        const noisyOrgs = Array.from({ length: noisy }, (_, index) => ORG(index + 1));
        const perOrg = 2 * poolSize;
        for (const orgId of noisyOrgs) for (let index = 0; index < perOrg; index++) send(orgId, `${orgId}-${index}`);
        // The quiet organisation sends while the noisy ones hold their shares.
        await eventually(() => expect(runs.size).toBeGreaterThan(0));
        const quiet: string[] = [];
        for (let index = 0; index < 5; index++) {
          send(QUIET, `quiet-${index}`);
          quiet.push(`quiet-${index}`);
          await eventually(() => expect(runs.has(`quiet-${index}`)).toBe(true), { timeoutMs: 30_000, intervalMs: 20 });
        }
        const total = noisy * perOrg + quiet.length;
        await eventually(() => expect(runs.size).toBe(total), { timeoutMs: 120_000, intervalMs: 100 });

        // The quiet organisation never waited for a noisy one's slow job: whenever one of its jobs came, the noisy
        // organisations together held fewer invocations than the pool has, so one was free for it, and it ran on its
        // first receive (never put back). Causal, not timed: a loaded machine delays every job alike.
        for (const id of quiet) {
          const at = sentAt.get(id)!;
          const holding = holds.filter((hold) => hold.start <= at && hold.end > at).length;
          expect(holding, id).toBeLessThan(poolSize);
          expect(runs.get(id), id).toBe(1);
        }
        // No noisy organisation ever held more invocations at once than its share.
        const share = orgShareOf(poolSize);
        for (const orgId of noisyOrgs) {
          const held = holds.filter((hold) => hold.orgId === orgId);
          const peak = Math.max(
            ...held.map((hold) => held.filter((other) => other.start <= hold.start && other.end > hold.start).length),
          );
          expect(peak, orgId).toBeLessThanOrEqual(share);
          expect(peak, orgId).toBeGreaterThan(0);
        }
        // Nothing lost, nothing dead-lettered: every job ran, and put-back copies came back as new messages.
        expect([...runs.values()].every((count) => count >= 1)).toBe(true);
        expect(queue.held().filter((message) => message.receiveCount >= 5)).toEqual([]);
      } finally {
        await consumer.stop();
      }
    },
    120_000,
  );
});
