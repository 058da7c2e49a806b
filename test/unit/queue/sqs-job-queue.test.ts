import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
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
});
