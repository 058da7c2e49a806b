import { validFor } from '#shared/adapters/aws/tenant-scope';
import type { ReportFiles } from '#shared/ports/report-files';
import { escapeXml, S3Error, type S3Rest, xmlText } from './s3-rest.ts';

/** 5 MiB: S3's smallest part but the last. Every part but the last is exactly this size. */
export const PART_SIZE = 5 * 1024 * 1024;
/** Part buffers per upload, each being filled or on its way: the upload holds 3 × 5 MiB whatever the file size. */
export const PART_BUFFERS = 3;
const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';
const utf8 = new TextEncoder();

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
   * Streams the body into the object: one PutObject when it fits in a part, else a multipart upload. Text is encoded
   * straight into one of PART_BUFFERS reused part buffers (no copy of a chunk, no concatenation), and a full one is
   * sent as it is. Reading the body waits while every buffer is on its way, so memory stays bounded whether rows come
   * faster or slower than S3 takes them. Any failure aborts the upload, so that no parts are left behind.
   */
  async upload(
    key: string,
    body: AsyncIterable<string | Uint8Array>,
    contentType = CSV_CONTENT_TYPE,
  ): Promise<{ sizeBytes: number }> {
    const buffers = new PartBuffers(PART_BUFFERS);
    let part = await buffers.take();
    let filled = 0;
    let sizeBytes = 0;
    let upload: MultipartUpload | undefined;
    const sendPart = async () => {
      upload ??= await MultipartUpload.begin(this.client, key, contentType);
      upload.add(part.subarray(0, filled), buffers.giveBack(part));
      part = await buffers.take();
      filled = 0;
      upload.throwIfFailed();
    };
    const character = new Uint8Array(4);
    try {
      for await (const chunk of body) {
        if (typeof chunk === 'string') {
          for (let rest = chunk; ; ) {
            const { read, written } = utf8.encodeInto(rest, part.subarray(filled, PART_SIZE));
            filled += written;
            sizeBytes += written;
            if (read === rest.length) {
              if (filled === PART_SIZE) await sendPart();
              break;
            }
            rest = rest.slice(read);
            if (filled === PART_SIZE) {
              await sendPart();
              continue;
            }
            // The next character does not fit whole: its first bytes end this part, the others begin the next.
            const units = (rest.codePointAt(0) ?? 0) > 0xffff ? 2 : 1;
            const size = utf8.encodeInto(rest.slice(0, units), character).written;
            const head = PART_SIZE - filled;
            part.set(character.subarray(0, head), filled);
            filled = PART_SIZE;
            await sendPart();
            part.set(character.subarray(head, size), 0);
            filled = size - head;
            sizeBytes += size;
            rest = rest.slice(units);
          }
        } else {
          for (let offset = 0; offset < chunk.byteLength; ) {
            const count = Math.min(chunk.byteLength - offset, PART_SIZE - filled);
            part.set(chunk.subarray(offset, offset + count), filled);
            filled += count;
            sizeBytes += count;
            offset += count;
            if (filled === PART_SIZE) await sendPart();
          }
        }
      }
      if (!upload) {
        await this.client.send({
          method: 'PUT',
          key,
          headers: { 'content-type': contentType, 'x-amz-server-side-encryption': 'AES256' },
          body: part.subarray(0, filled),
        });
        return { sizeBytes };
      }
      if (filled > 0) upload.add(part.subarray(0, filled), buffers.giveBack(part));
      await upload.complete();
      return { sizeBytes };
    } catch (error) {
      await upload?.abort();
      throw error;
    }
  }

  downloadUrl(
    key: string,
    fileName: string,
    expiresInSeconds: number,
    contentType = CSV_CONTENT_TYPE,
  ): Promise<string> {
    // A URL works while the credentials that signed it do: an organisation's session must outlive it.
    return validFor(expiresInSeconds, () =>
      this.signer.presignGet(
        key,
        {
          'response-content-disposition': `attachment; filename="${fileName.replace(/[^\w.-]/g, '_')}"`,
          'response-content-type': contentType,
        },
        expiresInSeconds,
      ),
    );
  }

  async delete(key: string): Promise<void> {
    await this.client.send({ method: 'DELETE', key });
  }
}

/**
 * The upload's part buffers, allocated when first needed and reused: `take` waits while all of them are in use, which
 * is what holds the producer back while S3 is slower than it.
 */
class PartBuffers {
  readonly #free: Buffer[] = [];
  readonly #waiting: ((buffer: Buffer) => void)[] = [];
  #allocated = 0;

  constructor(private readonly count: number) {}

  async take(): Promise<Buffer> {
    const free = this.#free.pop();
    if (free) return free;
    if (this.#allocated < this.count) {
      this.#allocated += 1;
      return Buffer.allocUnsafeSlow(PART_SIZE);
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** The function that returns `buffer` once its part is sent (or has failed). */
  giveBack(buffer: Buffer): () => void {
    return () => {
      const next = this.#waiting.shift();
      if (next) next(buffer);
      else this.#free.push(buffer);
    };
  }
}

/** One multipart upload: parts numbered in order of arrival and sent at once (PartBuffers bounds how many). */
class MultipartUpload {
  readonly #etags: string[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  #failure: unknown;

  private constructor(
    private readonly client: S3Rest,
    private readonly key: string,
    private readonly uploadId: string,
  ) {}

  static async begin(client: S3Rest, key: string, contentType: string): Promise<MultipartUpload> {
    const answer = await client.send({
      method: 'POST',
      key,
      query: { uploads: '' },
      headers: { 'content-type': contentType, 'x-amz-server-side-encryption': 'AES256' },
    });
    const uploadId = xmlText(answer.text, 'UploadId');
    if (!uploadId) throw new S3Error('MalformedResponse', answer.status, 'CreateMultipartUpload gave no UploadId');
    return new MultipartUpload(client, key, uploadId);
  }

  /** Starts sending the next part; `done` runs when it is sent or has failed (a failure is kept for the caller). */
  add(part: Buffer, done: () => void): void {
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
      .finally(() => {
        this.#inFlight.delete(sending);
        done();
      });
    this.#inFlight.add(sending);
  }

  async complete(): Promise<void> {
    await Promise.all(this.#inFlight);
    this.throwIfFailed();
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

  /** Throws the first part's failure, if one failed. */
  throwIfFailed() {
    if (this.#failure !== undefined) throw this.#failure;
  }
}
