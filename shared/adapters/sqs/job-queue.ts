import { ChangeMessageVisibilityCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { actingOrg } from '#shared/adapters/aws/tenant-scope';
import type { Job, JobQueue } from '#shared/ports/job-queue';

/**
 * SQS queues by logical name; the URLs come from `<NAME>_QUEUE_URL` variables set by the stack. Every message carries
 * its organisation as `MessageGroupId`: on a standard queue that makes it a fair queue, with the organisation as the
 * tenant (CONTRACT §18).
 */
export class SqsJobQueue implements JobQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly urls: (queue: string) => string,
  ) {}

  async send<T extends Job>(queue: string, body: T, options: { delaySeconds?: number } = {}): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.urls(queue),
        MessageBody: JSON.stringify(sentFrom(body)),
        MessageGroupId: body.orgId,
        DelaySeconds:
          options.delaySeconds === undefined ? undefined : Math.min(900, wholeSeconds(options.delaySeconds)),
      }),
    );
  }

  async retryAfter(queue: string, receiptHandle: string, seconds: number): Promise<void> {
    await this.client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: this.urls(queue),
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: Math.min(43_200, wholeSeconds(seconds)),
      }),
    );
  }
}

/**
 * The job as sent: with the organisation whose scope sent it (`actingFor`, CONTRACT §25) where the body names another,
 * which the consumer then acts for whatever organisation the body names. A job is never a way into another organisation's credentials: work that names
 * another organisation than the one that sent it runs with the sender's, and IAM refuses it.
 */
function sentFrom<T extends Job>(body: T): T & { actingFor?: string } {
  const orgId = actingOrg();
  return orgId && orgId !== body.orgId ? { ...body, actingFor: orgId } : body;
}

/**
 * SQS takes whole seconds. A positive wait is rounded up, never down to 0: a job told to wait 0.4 s (the rest of a
 * settle time) and made visible at once would be received again at once, and again, each receive counted towards the
 * redrive policy, until it reached the DLQ within that 0.4 s. Only an explicit 0 (a poison message) means now.
 */
export function wholeSeconds(seconds: number): number {
  return seconds > 0 ? Math.ceil(seconds) : 0;
}

export const queueUrlVariable = (name: string) => `${name.toUpperCase().replaceAll('-', '_')}_QUEUE_URL`;
