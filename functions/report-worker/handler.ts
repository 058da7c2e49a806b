import * as v from 'valibot';
import { reportWorkerDeps } from '#shared/config/reports';
import { processReportJob } from '#shared/domain/reports/run-report';
import { QUEUES } from '#shared/events/catalog';
import { sqsConsumer } from '#shared/queue/consumer';

const ReportJob = v.object({ orgId: v.string(), reportId: v.string() });
const maxReceiveCount = QUEUES.find((queue) => queue.name === 'report-requests')!.maxReceiveCount;

export const handler = sqsConsumer('report-requests', ReportJob, (job, receiveCount) =>
  processReportJob(reportWorkerDeps(), job, receiveCount, maxReceiveCount),
);
