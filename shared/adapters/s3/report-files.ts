import { type Readable, Transform } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { ReportFiles } from '#shared/ports/report-files';

/** 5 MiB parts, two in flight: the upload holds about 10 MiB whatever the file size. */
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 2;

export class S3ReportFiles implements ReportFiles {
  /**
   * @param client the client that uploads.
   * @param signer the client that signs download URLs: its endpoint is the host callers reach (locally
   *   WPCRM_S3_PUBLIC_URL), since the host is part of the signature.
   */
  constructor(
    private readonly client: S3Client,
    private readonly signer: S3Client,
    private readonly bucket: string,
  ) {}

  async upload(key: string, body: Readable): Promise<{ sizeBytes: number }> {
    let sizeBytes = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        sizeBytes += chunk.length;
        callback(null, chunk);
      },
    });
    body.on('error', (error) => counter.destroy(error));
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.bucket,
        Key: key,
        Body: body.pipe(counter),
        ContentType: 'text/csv; charset=utf-8',
        ServerSideEncryption: 'AES256',
      },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    await upload.done();
    return { sizeBytes };
  }

  downloadUrl(key: string, fileName: string, expiresInSeconds: number): Promise<string> {
    return getSignedUrl(
      this.signer,
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: key,
        ResponseContentDisposition: `attachment; filename="${fileName.replace(/[^\w.-]/g, '_')}"`,
        ResponseContentType: 'text/csv; charset=utf-8',
      }),
      { expiresIn: expiresInSeconds },
    );
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }
}
