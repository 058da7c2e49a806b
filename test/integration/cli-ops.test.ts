import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killCliProcesses, wpcrm } from '#test/support/cli';
import { createdGroup, requestGroup } from '#test/support/groups';
import { eventually, useLocalStack } from '#test/support/local-stack';

const json = <T = Record<string, unknown>>(text: string) => JSON.parse(text) as T;

interface DeadLetters {
  deadLetterQueues: { queue: string; depth: number; oldestAgeSeconds: number | null }[];
}

describe('wpcrm operator commands (dlq, requests held, status)', () => {
  const api = useLocalStack();
  const emptyDirs: string[] = [];
  const run = (...args: string[]) => wpcrm(args, api.stack.dataDir);

  afterAll(async () => {
    killCliProcesses();
    await Promise.all(emptyDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('lists each queue’s dead letters, shows them without taking them, and redrives them to their queue', async () => {
    const dlq = api.stack.queues.get('group-requests-dlq')!;
    const source = api.stack.queues.get('group-requests')!;
    const bodies = [1, 2, 3].map(() => ({ orgId: randomUUID(), requestId: `grq_${randomUUID()}` }));
    for (const body of bodies) dlq.send(JSON.stringify(body));
    const arrived: string[] = [];
    const stop = source.onMessage(() => arrived.push(...source.peek()));

    const listed = await run('dlq', 'list');
    const shown = await run('dlq', 'show', '--queue', 'group-requests', '--limit', '2');
    const afterShow = await run('dlq', 'list');
    const partial = await run('dlq', 'redrive', '--queue', 'group-requests', '--max', '2');
    const rest = await run('dlq', 'redrive', '--queue', 'group-requests');
    const emptied = await run('dlq', 'list');
    stop();

    expect(listed).toMatchObject({ status: 0, stderr: '' });
    const queues = json<DeadLetters>(listed.stdout).deadLetterQueues;
    expect(queues.map((item) => item.queue).sort()).toEqual([
      'event-feed',
      'group-requests',
      'network-notifications',
      'outbound-messages',
      'report-requests',
      'webhook-deliveries',
      'webhook-slow-receivers',
    ]);
    expect(queues.find((item) => item.queue === 'group-requests')).toMatchObject({ depth: 3 });
    expect(queues.find((item) => item.queue === 'group-requests')?.oldestAgeSeconds).toBeGreaterThanOrEqual(0);
    const messages = json<{ queue: string; messages: Record<string, unknown>[] }>(shown.stdout);
    expect(messages.queue).toBe('group-requests');
    expect(messages.messages).toHaveLength(2);
    for (const message of messages.messages) {
      expect(bodies).toContainEqual(message.body);
      expect(message).toMatchObject({ receiveCount: expect.any(Number), sentAt: expect.any(String) });
    }
    expect(json<DeadLetters>(afterShow.stdout).deadLetterQueues.find((q) => q.queue === 'group-requests')?.depth).toBe(
      3,
    );
    expect(json(partial.stdout)).toEqual({ queue: 'group-requests', moved: 2 });
    expect(json(rest.stdout)).toEqual({ queue: 'group-requests', moved: 1 });
    expect(json<DeadLetters>(emptied.stdout).deadLetterQueues.every((item) => item.depth === 0)).toBe(true);
    for (const body of bodies) expect(arrived).toContain(JSON.stringify(body));
  }, 180_000);

  it('lists a group request on hold after Meta refused its channel (190), with its channel and next try', async () => {
    const token = await api.token('CRM_ADMIN');
    await fetch(`http://127.0.0.1:${api.stack.info.ports.simulator}/_simulator/next-group`, {
      method: 'POST',
      body: JSON.stringify({ outcome: 'reject', code: 190 }),
    });
    const response = await requestGroup(api, token, { subject: 'Held by Meta' });
    const { requestId } = (await response.json()) as { requestId: string };

    const held = await eventually(
      async () => {
        const result = await run('requests', 'held', '--org', api.orgId);
        const list = json<{ requests: Record<string, string>[] }>(result.stdout).requests;
        expect(list.map((item) => item.requestId)).toContain(requestId);
        return list.find((item) => item.requestId === requestId)!;
      },
      { timeoutMs: 90_000 },
    );
    const otherOrg = await run('requests', 'held', '--org', randomUUID());
    const status = await run('status', '--org', api.orgId);

    expect(held).toMatchObject({
      orgId: api.orgId,
      channelId: api.stack.demo!.channels.eligible,
      code: '190',
      status: 'creating',
    });
    expect(Date.parse(held.nextTryAt!)).toBe(Date.parse(held.heldSince!) + 300_000);
    expect(Date.parse(held.failsAt!)).toBeGreaterThan(Date.parse(held.heldSince!));
    expect(json(otherOrg.stdout)).toEqual({ requests: [] });
    const document = json<{ heldRequests: { count: number; requests: { requestId: string }[] } }>(status.stdout);
    expect(document.heldRequests.requests.map((item) => item.requestId)).toContain(requestId);
  }, 180_000);

  it('prints one status document: queues, DLQs, held requests, reports, subscriptions and the last 24 h counts', async () => {
    const token = await api.token('CRM_ADMIN');
    await createdGroup(api, token, 'Counted');

    const status = await eventually(
      async () => {
        const result = await run('status');
        const document = json<{ last24h: Record<string, number> }>(result.stdout);
        expect(document.last24h.groupsCreated).toBeGreaterThanOrEqual(1);
        return document as Record<string, unknown>;
      },
      { timeoutMs: 90_000 },
    );

    expect(status).toMatchObject({
      target: 'local',
      queues: expect.arrayContaining([
        expect.objectContaining({
          queue: 'report-requests',
          depth: expect.any(Number),
          inFlight: expect.any(Number),
          deadLetter: expect.objectContaining({ depth: expect.any(Number) }),
        }),
      ]),
      heldRequests: expect.objectContaining({ count: expect.any(Number) }),
      reports: { pending: expect.any(Number), processing: expect.any(Number) },
      subscriptions: { disabled: expect.any(Array), failing: expect.any(Array) },
      alarmsInAlarm: null,
      last24h: {
        groupsCreated: expect.any(Number),
        groupsFailed: expect.any(Number),
        reportsCompleted: expect.any(Number),
        reportsFailed: expect.any(Number),
        deliveriesSucceeded: expect.any(Number),
        deliveriesFailed: expect.any(Number),
      },
    });
  }, 180_000);

  it('refuses bad flags with exit 1 before it looks for a stack, and no stack with exit 2', async () => {
    const nowhere = await mkdtemp(join(tmpdir(), 'wpcrm-ops-'));
    emptyDirs.push(nowhere);

    const results = await Promise.all([
      wpcrm(['dlq', 'show', '--queue', 'no-such-queue'], nowhere),
      wpcrm(['dlq', 'show', '--queue', 'group-requests', '--limit', '0'], nowhere),
      wpcrm(['dlq', 'redrive', '--queue', 'group-requests', '--max', 'all'], nowhere),
      wpcrm(['requests', 'held', '--org', 'acme'], nowhere),
      wpcrm(['status', '--verbose'], nowhere),
    ]);
    const noStack = await wpcrm(['dlq', 'list'], nowhere);

    for (const result of results) {
      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      expect(json<{ error: { code: string } }>(result.stderr).error.code).toBe('VALIDATION_FAILED');
    }
    expect(noStack.status).toBe(2);
    expect(json<{ error: { code: string } }>(noStack.stderr).error.code).toBe('STACK_NOT_RUNNING');
  }, 180_000);
});
