import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ListQueuesCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { reportKeys } from '#shared/adapters/dynamodb/keys';
import { killCliProcesses, wpcrm } from '#test/support/cli';
import { eventually } from '#test/support/eventually';
import { call, dataDir, localDeployment } from './target.ts';

interface StackFile {
  tableName: string;
  endpoints: { dynamodb: string; sqs?: string };
  /** The stack's key of this run (CONTRACT §21). */
  credentials: { accessKeyId: string; secretAccessKey: string };
}

const json = <T = Record<string, unknown>>(text: string) => JSON.parse(text) as T;

/**
 * The operators' day-two commands against the running deployment (CONTRACT §17): under start:cdk the queues have
 * the template's generated names, and the report sweeper deletes expired files with its own role.
 */
describe('wpcrm stuck work, status and report expiry against the running stack', () => {
  const stack = JSON.parse(readFileSync(join(dataDir, 'stack.json'), 'utf8')) as StackFile;
  const run = (...args: string[]) => wpcrm(args, dataDir, 120_000);
  afterAll(() => killCliProcesses());

  it('finds every queue and its DLQ by catalog name, shows and redrives dead letters', async () => {
    const listed = json<{ deadLetterQueues: { queue: string }[] }>((await run('dlq', 'list')).stdout);
    expect(listed.deadLetterQueues.map((item) => item.queue).sort()).toEqual([
      'event-feed',
      'group-requests',
      'network-notifications',
      'outbound-messages',
      'report-requests',
      'webhook-deliveries',
      'webhook-slow-receivers',
    ]);
    const sqs = new SQSClient({ region: 'local', endpoint: stack.endpoints.sqs, credentials: stack.credentials });
    const { QueueUrls = [] } = await sqs.send(new ListQueuesCommand({}));
    const dlqUrl = QueueUrls.find((url) => /GroupRequestsDeadLetterQueue/.test(url))!;
    const body = { orgId: randomUUID(), requestId: `grq_${randomUUID()}` };
    await sqs.send(new SendMessageCommand({ QueueUrl: dlqUrl, MessageBody: JSON.stringify(body) }));
    sqs.destroy();

    const shown = json<{ messages: { body: unknown }[] }>(
      (await run('dlq', 'show', '--queue', 'group-requests')).stdout,
    );
    const redriven = json((await run('dlq', 'redrive', '--queue', 'group-requests')).stdout);
    const status = json<{ queues: { queue: string; deadLetter: { depth: number } }[] }>((await run('status')).stdout);

    expect(shown.messages.map((message) => message.body)).toContainEqual(body);
    expect(redriven).toEqual({ queue: 'group-requests', moved: 1 });
    expect(status.queues.find((queue) => queue.queue === 'group-requests')?.deadLetter.depth).toBe(0);
  }, 300_000);

  it('deletes an expired report’s file with the sweeper’s role: the signed URL then finds nothing', async () => {
    const org = json<{ orgId: string }>((await run('org', 'create', '--name', 'Expiry')).stdout).orgId;
    const credential = json<{ clientId: string; clientSecret: string }>(
      (await run('credential', 'create', '--org', org, '--roles', 'CRM_ADMIN')).stdout,
    );
    const { clientId, clientSecret } = credential;
    const issued = await call('/token', { method: 'POST', json: { clientId, clientSecret } });
    expect(issued.status).toBe(200);
    const { accessToken: token } = (await issued.json()) as { accessToken: string };
    const requested = await call(`/reports/${org}`, { method: 'POST', token, json: { reportType: 'GOAL' } });
    expect(requested.status).toBe(202);
    const { reportId } = (await requested.json()) as { reportId: string };
    await eventually(
      async () => {
        const report = (await (await call(`/reports/${org}/${reportId}`, { token })).json()) as { status: string };
        expect(report.status).toBe('COMPLETED');
      },
      { timeoutMs: 60_000 },
    );
    const redirect = await call(`/reports/${org}/${reportId}/download`, { token, redirect: 'manual' });
    const location = redirect.headers.get('location')!;
    const before = await fetch(location);
    await before.arrayBuffer();
    // Time travel: the report's expiry set a minute back, as if its retention had run out.
    const past = new Date(Date.now() - 60_000).toISOString();
    const db = createDocumentClient({
      region: 'local',
      endpoint: stack.endpoints.dynamodb,
      credentials: stack.credentials,
    });
    await db.send(
      new UpdateCommand({
        TableName: stack.tableName,
        Key: reportKeys.report(org, reportId),
        UpdateExpression: 'SET expiresAt = :past, GSI2SK = :sk',
        ExpressionAttributeValues: { ':past': past, ':sk': reportKeys.expiring(past, org, reportId).GSI2SK },
      }),
    );
    db.destroy();

    const after = await eventually(
      async () => {
        const response = await fetch(location);
        await response.arrayBuffer();
        expect(response.status).toBe(404);
        return response;
      },
      { timeoutMs: 60_000 },
    );
    const download = await call(`/reports/${org}/${reportId}/download`, { token, redirect: 'manual' });

    expect(before.status).toBe(200);
    expect(after.status).toBe(404);
    expect(download.status).toBe(410);
  }, 300_000);

  it('lists the demo organisation’s held requests and prints a status with the last 24 h counts', async () => {
    const deployment = localDeployment();

    const held = await run('requests', 'held', '--org', deployment.orgId);
    const status = await run('status', '--org', deployment.orgId);

    expect(held).toMatchObject({ status: 0, stderr: '' });
    expect(json(held.stdout)).toMatchObject({ requests: expect.any(Array) });
    expect(json(status.stdout)).toMatchObject({
      target: 'local',
      orgId: deployment.orgId,
      alarmsInAlarm: null,
      last24h: expect.objectContaining({ groupsCreated: expect.any(Number), reportsCompleted: expect.any(Number) }),
    });
  }, 300_000);
});
