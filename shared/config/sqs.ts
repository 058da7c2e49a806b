import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsJobQueue } from '#shared/adapters/sqs/job-queue';
import { SqsNotificationInbox } from '#shared/adapters/sqs/notification-inbox';
import type { JobQueue } from '#shared/ports/job-queue';
import { NETWORK_NOTIFICATIONS_QUEUE, type NotificationInbox } from '#shared/ports/notification-inbox';
import { awsClientOptions, config } from './core.ts';
import { instance } from './instances.ts';

function sqsClient(): SQSClient {
  return instance(sqsClient, () => new SQSClient(awsClientOptions(config().aws.endpoints.sqs)));
}

function queueUrl(name: string): string {
  const url = config().queueUrl(name);
  if (!url) throw new Error(`no URL configured for queue ${name}`);
  return url;
}

export function jobQueue(): JobQueue {
  return instance(jobQueue, () => new SqsJobQueue(sqsClient(), queueUrl));
}

/** The network webhook's inbox: the network-notifications queue. */
export function notificationInbox(): NotificationInbox {
  return instance(
    notificationInbox,
    () => new SqsNotificationInbox(sqsClient(), () => queueUrl(NETWORK_NOTIFICATIONS_QUEUE)),
  );
}
