import * as v from 'valibot';
import { reportWorkerDeps } from '#shared/config/reports';
import { processReportJob, REPORT_REQUEST_RECEIVES } from '#shared/domain/reports/run-report';
import { sqsConsumer } from '#shared/queue/consumer';

const ReportJob = v.object({ orgId: v.string(), reportId: v.string() });
export const handler = sqsConsumer('report-requests', ReportJob, (job, receiveCount) =>
  processReportJob(reportWorkerDeps(), job, receiveCount, REPORT_REQUEST_RECEIVES),
);
