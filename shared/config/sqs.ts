import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsJobQueue } from '#shared/adapters/sqs/job-queue';
import type { JobQueue } from '#shared/ports/job-queue';
import { awsClientOptions, config } from './core.ts';
import { instance } from './instances.ts';

export function jobQueue(): JobQueue {
  return instance(jobQueue, () => {
    const cfg = config();
    return new SqsJobQueue(new SQSClient(awsClientOptions(cfg.aws.endpoints.sqs)), (name) => {
      const url = cfg.queueUrls[name];
      if (!url) throw new Error(`no URL configured for queue ${name}`);
      return url;
    });
  });
}
