import { ChangeMessageVisibilityCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { actingFor } from '#shared/adapters/aws/tenant-scope';
import { SqsJobQueue } from '#shared/adapters/sqs/job-queue';

const sqs = mockClient(SQSClient);
afterEach(() => sqs.reset());

describe('SqsJobQueue', () => {
  it("sends every job with its organisation as MessageGroupId: the tenant of the standard queue's fair queueing", async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
    const queue = new SqsJobQueue(new SQSClient({ region: 'eu-central-1' }), (name) => `https://sqs.local/${name}`);

    await queue.send('report-requests', { orgId: 'org-a', reportId: 'rpt_1' }, { delaySeconds: 3 });

    expect(sqs.commandCalls(SendMessageCommand)[0]?.args[0].input).toEqual({
      QueueUrl: 'https://sqs.local/report-requests',
      MessageBody: JSON.stringify({ orgId: 'org-a', reportId: 'rpt_1' }),
      MessageGroupId: 'org-a',
      DelaySeconds: 3,
    });
  });

  it('names the organisation whose scope sent the job (CONTRACT §25), whatever its body names', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-3' });
    const queue = new SqsJobQueue(new SQSClient({ region: 'eu-central-1' }), (name) => `https://sqs.local/${name}`);

    await actingFor('org-a', () => queue.send('event-feed', { orgId: 'org-b', kind: 'append' }));
    await actingFor('org-a', () => queue.send('event-feed', { orgId: 'org-a', kind: 'append' }));
    await queue.send('event-feed', { orgId: 'org-c', kind: 'append' });

    expect(sqs.commandCalls(SendMessageCommand).map((call) => JSON.parse(call.args[0].input.MessageBody!))).toEqual([
      { orgId: 'org-b', kind: 'append', actingFor: 'org-a' },
      { orgId: 'org-a', kind: 'append' },
      { orgId: 'org-c', kind: 'append' },
    ]);
  });

  it('rounds a positive wait up, never down to visible-at-once: a 0.4 s wait would otherwise burn receives into the DLQ', async () => {
    sqs.on(ChangeMessageVisibilityCommand).resolves({});
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-2' });
    const queue = new SqsJobQueue(new SQSClient({ region: 'eu-central-1' }), (name) => `https://sqs.local/${name}`);

    await queue.retryAfter('group-requests', 'rh-1', 0.4);
    await queue.retryAfter('group-requests', 'rh-2', 0);
    await queue.retryAfter('group-requests', 'rh-3', 2.2);
    await queue.send('group-requests', { orgId: 'org-a', requestId: 'grq_1' }, { delaySeconds: 0.1 });

    expect(
      sqs.commandCalls(ChangeMessageVisibilityCommand).map((call) => call.args[0].input.VisibilityTimeout),
    ).toEqual([1, 0, 3]);
    expect(sqs.commandCalls(SendMessageCommand)[0]?.args[0].input.DelaySeconds).toBe(1);
  });
});
