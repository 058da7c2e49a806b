import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { scopedCredentials } from '#shared/adapters/aws/tenant-clients';
import { S3ReportFiles } from '#shared/adapters/s3/report-files';
import { S3Rest } from '#shared/adapters/s3/s3-rest';
import type { ReportFiles } from '#shared/ports/report-files';
import { config } from './core.ts';
import { instance } from './instances.ts';
import { tenantCredentials } from './tenant.ts';

export function reportFiles(): ReportFiles {
  return instance(reportFiles, () => {
    const cfg = config();
    // An organisation's files with its credentials (CONTRACT §25); the URL it signs outlives nothing it was signed with.
    const credentials = scopedCredentials(defaultProvider(), tenantCredentials());
    const s3 = (endpoint: string | undefined) =>
      new S3Rest(
        { bucket: cfg.aws.reportsBucket, region: cfg.aws.region, endpoint },
        // Report parts are 5 MiB: give each upload request more time than an API call.
        { credentials, requestTimeoutMs: 30_000, maxAttempts: 3 },
      );
    const client = s3(cfg.aws.endpoints.s3);
    // Locally the signed URL must name the host callers reach; on AWS the regional endpoint is that host.
    const signer = cfg.reports.s3PublicUrl ? s3(cfg.reports.s3PublicUrl) : client;
    return new S3ReportFiles(client, signer);
  });
}
