import { ChangeMessageVisibilityCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
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
        MessageBody: JSON.stringify(body),
        MessageGroupId: body.orgId,
        DelaySeconds:
          options.delaySeconds === undefined ? undefined : Math.min(900, Math.max(0, Math.round(options.delaySeconds))),
      }),
    );
  }

  async retryAfter(queue: string, receiptHandle: string, seconds: number): Promise<void> {
    await this.client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: this.urls(queue),
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: Math.min(43_200, Math.max(0, Math.round(seconds))),
      }),
    );
  }
}

export const queueUrlVariable = (name: string) => `${name.toUpperCase().replaceAll('-', '_')}_QUEUE_URL`;
