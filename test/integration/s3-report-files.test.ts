import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startS3 } from '#infra/local/servers';
import { PART_SIZE, S3ReportFiles } from '#shared/adapters/s3/report-files';
import { type S3Call, S3Rest } from '#shared/adapters/s3/s3-rest';

/** The report files adapter against the embedded S3 server, over HTTP, with s3rver's own key pair. */
describe('S3 report files (SigV4 requests to an S3-compatible server)', () => {
  const directory = mkdtempSync(join(tmpdir(), 'wpcrm-s3-'));
  let server: RunningServer;
  const calls: S3Call[] = [];
  let client: RecordingS3;

  class RecordingS3 extends S3Rest {
    override send(call: S3Call) {
      calls.push(call);
      return super.send(call);
    }
  }

  beforeAll(async () => {
    server = await startS3({ port: 0, directory, bucket: 'reports' });
    client = new RecordingS3(
      { bucket: 'reports', region: 'eu-west-1', endpoint: server.endpoint },
      { credentials: async () => ({ accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }), requestTimeoutMs: 30_000 },
    );
  });
  afterAll(async () => {
    await server.close();
    await rm(directory, { recursive: true, force: true });
  });

  const files = () => new S3ReportFiles(client);
  const download = async (key: string) => {
    const response = await fetch(await files().downloadUrl(key, 'chats 2026.csv', 60));
    return { response, body: Buffer.from(await response.arrayBuffer()) };
  };

  it('writes a small file with one PutObject and serves it through a pre-signed URL with a download name', async () => {
    calls.length = 0;
    const text = 'id,name\n1,"Ada, Countess"\n';
    const { sizeBytes } = await files().upload('org_1/rpt_small.csv', Readable.from([text]));

    expect(sizeBytes).toBe(Buffer.byteLength(text));
    expect(calls.map((call) => `${call.method} ${Object.keys(call.query ?? {}).join(',')}`)).toEqual(['PUT ']);
    const { response, body } = await download('org_1/rpt_small.csv');
    expect(response.status).toBe(200);
    expect(body.toString('utf8')).toBe(text);
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="chats_2026.csv"');
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  });

  it('streams a file larger than a part as a multipart upload and reassembles it byte for byte', async () => {
    calls.length = 0;
    const chunk = Buffer.alloc(256 * 1024);
    const total = 2 * PART_SIZE + 123_457;
    const source = async function* () {
      for (let sent = 0, index = 0; sent < total; index++) {
        const size = Math.min(chunk.length, total - sent);
        yield Buffer.alloc(size, index % 251);
        sent += size;
      }
    };
    const { sizeBytes } = await files().upload('org_1/rpt_large.csv', Readable.from(source()));

    expect(sizeBytes).toBe(total);
    expect(calls.map((call) => `${call.method} ${Object.keys(call.query ?? {}).join(',')}`)).toEqual([
      'POST uploads',
      'PUT partNumber,uploadId',
      'PUT partNumber,uploadId',
      'PUT partNumber,uploadId',
      'POST uploadId',
    ]);
    const { response, body } = await download('org_1/rpt_large.csv');
    expect(response.status).toBe(200);
    expect(body.length).toBe(total);
    const expected = Buffer.concat(
      Array.from({ length: Math.ceil(total / chunk.length) }, (_, index) =>
        Buffer.alloc(Math.min(chunk.length, total - index * chunk.length), index % 251),
      ),
    );
    expect(body.equals(expected)).toBe(true);
  });

  it('aborts the multipart upload when the source fails, leaving no object', async () => {
    calls.length = 0;
    const source = async function* () {
      yield Buffer.alloc(PART_SIZE + 1, 1);
      yield Buffer.alloc(1024, 2);
      throw new Error('the records could not be read');
    };

    await expect(files().upload('org_1/rpt_broken.csv', Readable.from(source()))).rejects.toThrow(
      'the records could not be read',
    );
    expect(calls.map((call) => `${call.method} ${Object.keys(call.query ?? {}).join(',')}`)).toEqual([
      'POST uploads',
      'PUT partNumber,uploadId',
      'DELETE uploadId',
    ]);
    expect((await download('org_1/rpt_broken.csv')).response.status).toBe(404);
  });

  it('fails with S3’s error code and status when S3 refuses the request, without retrying a 4xx', async () => {
    calls.length = 0;
    const elsewhere = new RecordingS3(
      { bucket: 'no-such-bucket', region: 'eu-west-1', endpoint: server.endpoint },
      { credentials: async () => ({ accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }), requestTimeoutMs: 5_000 },
    );

    await expect(
      new S3ReportFiles(elsewhere).upload('org_1/rpt_nowhere.csv', Readable.from(['x'])),
    ).rejects.toMatchObject({ name: 'S3Error', code: 'NoSuchBucket', statusCode: 404 });
    expect(calls).toHaveLength(1);
  });
});
