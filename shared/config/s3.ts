import { S3Client } from '@aws-sdk/client-s3';
import { S3ReportFiles } from '#shared/adapters/s3/report-files';
import type { ReportFiles } from '#shared/ports/report-files';
import { awsClientOptions, config } from './core.ts';
import { instance } from './instances.ts';

export function reportFiles(): ReportFiles {
  return instance(reportFiles, () => {
    const cfg = config();
    const s3 = (endpoint: string | undefined) =>
      new S3Client({
        // Report parts are 5 MiB: give each upload request more time than an API call.
        ...awsClientOptions(endpoint, 30_000),
        forcePathStyle: endpoint !== undefined,
      });
    const client = s3(cfg.aws.endpoints.s3);
    // Locally the signed URL must name the host callers reach; on AWS the regional endpoint is that host.
    const signer = cfg.reports.s3PublicUrl ? s3(cfg.reports.s3PublicUrl) : client;
    return new S3ReportFiles(client, signer, cfg.aws.reportsBucket);
  });
}
