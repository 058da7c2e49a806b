import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { actingOrg } from '#shared/adapters/aws/tenant-scope';
import { accessStatus } from '#shared/config/access';
import { provide, resetDeps } from '#shared/config/instances';
import { jobQueue } from '#shared/config/sqs';
import { AccessStatusCache } from '#shared/domain/auth/access-status';
import { OrgGoneError, OrgSuspendedError } from '#shared/errors';
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

  it('answers each of two concurrent invocations with its own failures (the local stack runs them in one process)', async () => {
    const { run } = harness(async ({ id }) => {
      await new Promise((resolve) => setTimeout(resolve, id.startsWith('slow') ? 50 : 1));
      if (id.endsWith('boom')) throw new Error('connect ECONNREFUSED');
    });

    // The first batch's failure is known before the second invocation starts; its slow record keeps it running.
    const first = run([record('a1', { id: 'slow-ok' }), record('a2', { id: 'fast-boom' })]);
    await new Promise((resolve) => setTimeout(resolve, 15));
    const second = run([record('b1', { id: 'fast-ok' }), record('b2', { id: 'slow-ok' })]);

    expect((await first).batchItemFailures).toEqual([{ itemIdentifier: 'a2' }]);
    expect((await second).batchItemFailures).toEqual([]);
  });

  it('acts for each record’s organisation — the one whose scope sent it, else the one its body names (CONTRACT §25)', async () => {
    provide(accessStatus, { workStatus: async () => 'active' } as unknown as AccessStatusCache);
    const seen: string[] = [];
    const handler = sqsConsumer('jobs', v.object({ orgId: v.string() }), async ({ orgId }) => {
      await new Promise((resolve) => setTimeout(resolve, orgId === 'org-a' ? 10 : 0));
      seen.push(`${orgId} as ${actingOrg()}`);
    });
    provide(jobQueue, { send: async () => undefined, retryAfter: async () => undefined });

    await handler(
      {
        Records: [
          record('m1', { orgId: 'org-a' }),
          record('m2', { orgId: 'org-b' }),
          // A job that names another organisation than the one that sent it runs with the sender's credentials.
          record('m3', { orgId: 'org-c', actingFor: 'org-b' }),
        ],
      } as SQSEvent,
      { functionName: 'test', awsRequestId: 'r' } as Context,
    );

    expect(seen.sort()).toEqual(['org-a as org-a', 'org-b as org-b', 'org-c as org-b']);
  });

  it('uses the delay a use case asks for with RetryLater', async () => {
    const { delays, run } = harness(async () => {
      throw new RetryLater(42, 'later');
    });

    // A batch whose every record failed is thrown back whole (Powertools), and Lambda retries each on its own delay.
    await expect(run([record('m1', { id: 'a' })])).rejects.toThrow(/All records failed/);

    expect(delays).toEqual([{ handle: 'handle-m1', seconds: 42 }]);
  });

  it("puts a suspended organisation's jobs back on their queue with a delay instead of working on them", async () => {
    const SUSPENDED = '0b0e2bd8-3a41-4b7a-9b43-2f7a8e0c1d55';
    const worked: unknown[] = [];
    const sent: { queue: string; body: unknown; delaySeconds?: number }[] = [];
    provide(jobQueue, {
      send: async (queue, body, options) => void sent.push({ queue, body, ...options }),
      retryAfter: async () => undefined,
    });
    const store = {
      getOrgStatus: async (orgId: string) => (orgId === SUSPENDED ? ('suspended' as const) : ('active' as const)),
      getCredential: async () => undefined,
      getOrgRecord: async () => undefined,
    };
    provide(accessStatus, new AccessStatusCache(store, 30_000));
    const handler = sqsConsumer('jobs', v.looseObject({}), async (body) => void worked.push(body));
    const suspendedJob = { orgId: SUSPENDED, reportId: 'rpt_1' };
    const suspendedEvent = { 'detail-type': 'report.completed', detail: { organisation_id: SUSPENDED } };
    const activeJob = { orgId: '1c9d7a52-6f0e-4b0a-8a55-3d2b1e0f9a77', reportId: 'rpt_2' };

    const result = await handler(
      { Records: [record('m1', suspendedJob), record('m2', suspendedEvent), record('m3', activeJob)] } as SQSEvent,
      { functionName: 'test', awsRequestId: 'r' } as Context,
    );

    expect(result.batchItemFailures).toEqual([]);
    expect(worked).toEqual([activeJob]);
    expect(sent).toEqual([
      { queue: 'jobs', body: suspendedJob, delaySeconds: 300 },
      { queue: 'jobs', body: suspendedEvent, delaySeconds: 300 },
    ]);
  });

  it('puts a job back the same way when the network gate refuses its suspended organisation mid-way', async () => {
    const sent: { queue: string; body: unknown; delaySeconds?: number }[] = [];
    const delays: number[] = [];
    provide(jobQueue, {
      send: async (queue, body, options) => void sent.push({ queue, body, ...options }),
      retryAfter: async (_queue, _handle, seconds) => void delays.push(seconds),
    });
    provide(
      accessStatus,
      new AccessStatusCache(
        { getOrgStatus: async () => 'active', getCredential: async () => undefined, getOrgRecord: async () => ({}) },
        0,
      ),
    );
    const handler = sqsConsumer('jobs', v.looseObject({}), async () => {
      throw new OrgSuspendedError();
    });
    const job = { orgId: '1c9d7a52-6f0e-4b0a-8a55-3d2b1e0f9a77', messageId: 'msg_1' };

    const result = await handler(
      { Records: [record('m1', job)] } as SQSEvent,
      { functionName: 'test', awsRequestId: 'r' } as Context,
    );

    expect(result.batchItemFailures).toEqual([]);
    expect(sent).toEqual([{ queue: 'jobs', body: job, delaySeconds: 300 }]);
    expect(delays).toEqual([]);
  });

  it('drops the jobs of an organisation being erased or gone, and works for one created before status copies', async () => {
    const DELETING = '0b0e2bd8-3a41-4b7a-9b43-2f7a8e0c1d55';
    const ERASED = '5d6e7f80-1a2b-4c3d-8e9f-0a1b2c3d4e5f';
    const OLDER = '1c9d7a52-6f0e-4b0a-8a55-3d2b1e0f9a77';
    const worked: unknown[] = [];
    const sent: unknown[] = [];
    provide(jobQueue, { send: async (_queue, body) => void sent.push(body), retryAfter: async () => undefined });
    const store = {
      getOrgStatus: async (orgId: string) => (orgId === DELETING ? ('deleting' as const) : undefined),
      getCredential: async () => undefined,
      // An organisation created before status copies has its item (and no copy); an erased one has neither.
      getOrgRecord: async (orgId: string) => (orgId === OLDER ? {} : undefined),
    };
    provide(accessStatus, new AccessStatusCache(store, 30_000));
    const handler = sqsConsumer('jobs', v.looseObject({}), async (body) => void worked.push(body));
    const deletingJob = { orgId: DELETING, reportId: 'rpt_1' };
    const erasedEvent = { 'detail-type': 'report.completed', detail: { organisation_id: ERASED } };
    const olderJob = { orgId: OLDER, reportId: 'rpt_2' };

    const result = await handler(
      { Records: [record('m1', deletingJob), record('m2', erasedEvent), record('m3', olderJob)] } as SQSEvent,
      { functionName: 'test', awsRequestId: 'r' } as Context,
    );

    expect(result.batchItemFailures).toEqual([]);
    expect(worked).toEqual([olderJob]);
    expect(sent).toEqual([]);
  });

  it('drops a job when the network gate finds its organisation erased mid-way', async () => {
    const sent: unknown[] = [];
    const delays: number[] = [];
    provide(jobQueue, {
      send: async (_queue, body) => void sent.push(body),
      retryAfter: async (_queue, _handle, seconds) => void delays.push(seconds),
    });
    provide(
      accessStatus,
      new AccessStatusCache(
        { getOrgStatus: async () => 'active', getCredential: async () => undefined, getOrgRecord: async () => ({}) },
        0,
      ),
    );
    const handler = sqsConsumer('jobs', v.looseObject({}), async () => {
      throw new OrgGoneError();
    });

    const result = await handler(
      { Records: [record('m1', { orgId: '1c9d7a52-6f0e-4b0a-8a55-3d2b1e0f9a77' })] } as SQSEvent,
      { functionName: 'test', awsRequestId: 'r' } as Context,
    );

    expect(result.batchItemFailures).toEqual([]);
    expect(sent).toEqual([]);
    expect(delays).toEqual([]);
  });
});
