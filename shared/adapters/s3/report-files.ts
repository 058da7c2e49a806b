import type { Readable } from 'node:stream';
import type { ReportFiles } from '#shared/ports/report-files';
import { escapeXml, S3Error, type S3Rest, xmlText } from './s3-rest.ts';

/** 5 MiB parts (S3's smallest but the last), two in flight: the upload holds about 15 MiB whatever the file size. */
export const PART_SIZE = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;
const CONTENT_TYPE = 'text/csv; charset=utf-8';

export class S3ReportFiles implements ReportFiles {
  /**
   * @param client the client that uploads.
   * @param signer the client that signs download URLs: its endpoint is the host callers reach (locally
   *   WPCRM_S3_PUBLIC_URL), since the host is part of the signature.
   */
  constructor(
    private readonly client: S3Rest,
    private readonly signer: S3Rest = client,
  ) {}

  /**
   * Streams the body into the object: one PutObject when it fits in a part, else a multipart upload with two parts
   * in flight (reading waits while both are), aborted on any failure so that no parts are left behind.
   */
  async upload(key: string, body: Readable): Promise<{ sizeBytes: number }> {
    let sizeBytes = 0;
    let chunks: Buffer[] = [];
    let buffered = 0;
    let upload: MultipartUpload | undefined;
    try {
      for await (const chunk of body) {
        const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
        sizeBytes += bytes.length;
        chunks.push(bytes);
        buffered += bytes.length;
        if (buffered < PART_SIZE) continue;
        upload ??= await MultipartUpload.begin(this.client, key);
        await upload.add(Buffer.concat(chunks));
        chunks = [];
        buffered = 0;
      }
      if (!upload) {
        await this.client.send({
          method: 'PUT',
          key,
          headers: { 'content-type': CONTENT_TYPE, 'x-amz-server-side-encryption': 'AES256' },
          body: Buffer.concat(chunks),
        });
        return { sizeBytes };
      }
      if (buffered > 0) await upload.add(Buffer.concat(chunks));
      await upload.complete();
      return { sizeBytes };
    } catch (error) {
      await upload?.abort();
      throw error;
    }
  }

  downloadUrl(key: string, fileName: string, expiresInSeconds: number): Promise<string> {
    return this.signer.presignGet(
      key,
      {
        'response-content-disposition': `attachment; filename="${fileName.replace(/[^\w.-]/g, '_')}"`,
        'response-content-type': CONTENT_TYPE,
      },
      expiresInSeconds,
    );
  }

  async delete(key: string): Promise<void> {
    await this.client.send({ method: 'DELETE', key });
  }
}

/** One multipart upload: parts sent in order of arrival, at most PARTS_IN_FLIGHT at a time. */
class MultipartUpload {
  readonly #etags: string[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  #failure: unknown;

  private constructor(
    private readonly client: S3Rest,
    private readonly key: string,
    private readonly uploadId: string,
  ) {}

  static async begin(client: S3Rest, key: string): Promise<MultipartUpload> {
    const answer = await client.send({
      method: 'POST',
      key,
      query: { uploads: '' },
      headers: { 'content-type': CONTENT_TYPE, 'x-amz-server-side-encryption': 'AES256' },
    });
    const uploadId = xmlText(answer.text, 'UploadId');
    if (!uploadId) throw new S3Error('MalformedResponse', answer.status, 'CreateMultipartUpload gave no UploadId');
    return new MultipartUpload(client, key, uploadId);
  }

  /** Sends the next part; waits while PARTS_IN_FLIGHT parts are on their way; throws a part's failure. */
  async add(part: Buffer): Promise<void> {
    this.#throwIfFailed();
    const partNumber = this.#etags.length + 1;
    this.#etags.push('');
    const sending: Promise<void> = this.client
      .send({
        method: 'PUT',
        key: this.key,
        query: { partNumber: String(partNumber), uploadId: this.uploadId },
        body: part,
      })
      .then((answer) => {
        const etag = answer.headers.get('etag');
        if (!etag) throw new S3Error('MalformedResponse', answer.status, `UploadPart ${partNumber} gave no ETag`);
        this.#etags[partNumber - 1] = etag;
      })
      .catch((error: unknown) => {
        this.#failure ??= error;
      })
      .finally(() => this.#inFlight.delete(sending));
    this.#inFlight.add(sending);
    while (this.#inFlight.size >= PARTS_IN_FLIGHT) await Promise.race(this.#inFlight);
    this.#throwIfFailed();
  }

  async complete(): Promise<void> {
    await Promise.all(this.#inFlight);
    this.#throwIfFailed();
    const parts = this.#etags
      .map((etag, index) => `<Part><PartNumber>${index + 1}</PartNumber><ETag>${escapeXml(etag)}</ETag></Part>`)
      .join('');
    await this.client.send({
      method: 'POST',
      key: this.key,
      query: { uploadId: this.uploadId },
      headers: { 'content-type': 'application/xml' },
      body: `<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${parts}</CompleteMultipartUpload>`,
    });
  }

  /** Ends the upload and frees its parts (best effort: a lifecycle rule removes what an abort leaves). */
  async abort(): Promise<void> {
    await Promise.allSettled(this.#inFlight);
    await this.client
      .send({ method: 'DELETE', key: this.key, query: { uploadId: this.uploadId } })
      .catch(() => undefined);
  }

  #throwIfFailed() {
    if (this.#failure !== undefined) throw this.#failure;
  }
}
