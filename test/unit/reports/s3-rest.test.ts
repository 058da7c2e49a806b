import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { PART_SIZE, S3ReportFiles } from '#shared/adapters/s3/report-files';
import { S3Rest } from '#shared/adapters/s3/s3-rest';

const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * An independent SigV4 check (AWS's "Create a signed AWS API request" steps, S3 flavour: the path as sent, not
 * encoded again), computed from the request as it arrived on the wire. Returns why it does not verify, or undefined.
 */
function sigV4Problem(seen: Seen, secret: string): string | undefined {
  const url = new URL(seen.url, 'http://placeholder');
  const query = [...url.searchParams.entries()];
  const presigned = url.searchParams.has('X-Amz-Signature');
  let credential: string;
  let signedHeaders: string;
  let signature: string;
  let amzDate: string;
  let payloadHash: string;
  if (presigned) {
    credential = url.searchParams.get('X-Amz-Credential')!;
    signedHeaders = url.searchParams.get('X-Amz-SignedHeaders')!;
    signature = url.searchParams.get('X-Amz-Signature')!;
    amzDate = url.searchParams.get('X-Amz-Date')!;
    payloadHash = 'UNSIGNED-PAYLOAD';
  } else {
    const match = /^AWS4-HMAC-SHA256 Credential=([^,]+), ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]+)$/.exec(
      seen.headers.authorization ?? '',
    );
    if (!match) return `no SigV4 authorization header: ${seen.headers.authorization}`;
    [, credential, signedHeaders, signature] = match as unknown as [string, string, string, string];
    amzDate = seen.headers['x-amz-date']!;
    payloadHash = seen.headers['x-amz-content-sha256']!;
    const bodyHash = createHash('sha256').update(seen.body).digest('hex');
    if (payloadHash !== bodyHash) return `x-amz-content-sha256 ${payloadHash} is not the body's ${bodyHash}`;
  }
  const encode = (text: string) =>
    encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const canonicalQuery = query
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => [encode(name), encode(value)])
    .sort(([a, x], [b, y]) => (a === b ? (x! < y! ? -1 : 1) : a! < b! ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const canonicalHeaders = signedHeaders
    .split(';')
    .map((name) => `${name}:${(seen.headers[name] ?? '').trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const canonicalRequest = [
    seen.method,
    url.pathname,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders,
    payloadHash,
  ].join('\n');
  const [, date, region, service] = credential.split('/') as [string, string, string, string];
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    amzDate,
    scope,
    createHash('sha256').update(canonicalRequest).digest('hex'),
  ].join('\n');
  const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
  const expected = createHmac('sha256', key).update(stringToSign).digest('hex');
  return expected === signature ? undefined : `signature ${signature} is not ${expected}\n${canonicalRequest}`;
}

describe('S3Rest: SigV4-signed S3 requests over HTTP', () => {
  let server: Server;
  let endpoint: string;
  const seen: Seen[] = [];
  /** Answers for the next requests, in order; then 200 with an empty body and an ETag. */
  const script: { status: number; body?: string }[] = [];

  beforeAll(async () => {
    server = createServer((request: IncomingMessage, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        seen.push({
          method: request.method!,
          url: request.url!,
          headers: request.headers as Record<string, string>,
          body: Buffer.concat(chunks),
        });
        const next = script.shift() ?? {
          status: 200,
          body: request.url?.includes('uploads') ? '<Result><UploadId>up+1/2=&amp;x</UploadId></Result>' : '',
        };
        response.writeHead(next.status, { etag: `"etag-${seen.length}"`, 'content-type': 'application/xml' });
        response.end(next.body ?? '');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  afterEach(() => {
    seen.length = 0;
    script.length = 0;
    vi.useRealTimers();
  });

  const rest = (options: { sessionToken?: string; endpoint?: string | null } = {}) =>
    new S3Rest(
      {
        bucket: 'wpcrm-reports',
        region: 'eu-west-1',
        endpoint: options.endpoint === null ? undefined : (options.endpoint ?? endpoint),
      },
      {
        credentials: async () => ({ ...CREDENTIALS, sessionToken: options.sessionToken }),
        requestTimeoutMs: 2_000,
      },
    );

  it('signs every multipart call so that an independent SigV4 check verifies it, body hash included', async () => {
    // One part: the chunks fill the part size only together.
    const tail = 'tail, with ümlauts';
    const body = Readable.from([Buffer.alloc(PART_SIZE - Buffer.byteLength(tail), 7), tail]);
    await new S3ReportFiles(rest()).upload('org_1/rpt 1.csv', body);

    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual([
      'POST /wpcrm-reports/org_1/rpt%201.csv?uploads=',
      'PUT /wpcrm-reports/org_1/rpt%201.csv?partNumber=1&uploadId=up%2B1%2F2%3D%26x',
      'POST /wpcrm-reports/org_1/rpt%201.csv?uploadId=up%2B1%2F2%3D%26x',
    ]);
    for (const request of seen) expect(sigV4Problem(request, CREDENTIALS.secretAccessKey)).toBeUndefined();
    expect(seen[0]!.headers['x-amz-server-side-encryption']).toBe('AES256');
    expect(seen[1]!.body.length).toBe(PART_SIZE);
    expect(seen[1]!.body.subarray(-Buffer.byteLength(tail)).toString()).toBe(tail);
    expect(seen[2]!.body.toString()).toBe(
      '<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Part><PartNumber>1</PartNumber>' +
        '<ETag>"etag-2"</ETag></Part></CompleteMultipartUpload>',
    );
  });

  it('pre-signs a GET that the same check verifies, exactly as the AWS SDK presigner does', async () => {
    vi.useFakeTimers({ now: new Date('2026-11-23T10:00:00.000Z'), toFake: ['Date'] });
    const query = {
      'response-content-disposition': 'attachment; filename="chats.csv"',
      'response-content-type': 'text/csv; charset=utf-8',
    };
    const ours = new URL(await rest({ sessionToken: 'session/token+1' }).presignGet('org_1/rpt_1.csv', query, 900));
    const sdk = new URL(
      await getSignedUrl(
        new S3Client({
          region: 'eu-west-1',
          endpoint,
          forcePathStyle: true,
          credentials: { ...CREDENTIALS, sessionToken: 'session/token+1' },
        }),
        new GetObjectCommand({
          Bucket: 'wpcrm-reports',
          Key: 'org_1/rpt_1.csv',
          ResponseContentDisposition: query['response-content-disposition'],
          ResponseContentType: query['response-content-type'],
        }),
        { expiresIn: 900 },
      ),
    );

    const params = (url: URL, without: string[]) =>
      Object.fromEntries([...url.searchParams.entries()].filter(([name]) => !without.includes(name)));
    // The SDK adds `x-id=GetObject` and `x-amz-checksum-mode` (signed, so the signatures differ); the rest is the same.
    expect(params(ours, ['X-Amz-Signature'])).toEqual(params(sdk, ['X-Amz-Signature', 'x-id', 'x-amz-checksum-mode']));
    expect(`${ours.origin}${ours.pathname}`).toBe(`${sdk.origin}${sdk.pathname}`);
    for (const url of [ours, sdk]) {
      const request = {
        method: 'GET',
        url: `${url.pathname}${url.search}`,
        headers: { host: url.host },
        body: Buffer.alloc(0),
      };
      expect(sigV4Problem(request, CREDENTIALS.secretAccessKey)).toBeUndefined();
    }
    // …and the check does refuse an altered URL.
    const altered = `${ours.pathname}${ours.search.replace('X-Amz-Expires=900', 'X-Amz-Expires=3600')}`;
    expect(
      sigV4Problem({ method: 'GET', url: altered, headers: { host: ours.host }, body: Buffer.alloc(0) }, 'secret'),
    ).toMatch(/^signature/);
  });

  it('addresses the regional virtual-hosted endpoint when no endpoint is configured', async () => {
    const url = new URL(await rest({ endpoint: null }).presignGet('org_1/rpt_1.csv', {}, 60));
    expect(url.origin).toBe('https://wpcrm-reports.s3.eu-west-1.amazonaws.com');
    expect(url.pathname).toBe('/org_1/rpt_1.csv');
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^AKIDEXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request$/);
  });

  it('retries a 5xx and then succeeds, signing each attempt afresh', async () => {
    script.push({ status: 503, body: '<Error><Code>SlowDown</Code><Message>Reduce your rate</Message></Error>' });
    const answer = await rest().send({ method: 'PUT', key: 'k', body: 'x' });

    expect(answer.status).toBe(200);
    expect(seen).toHaveLength(2);
    for (const request of seen) expect(sigV4Problem(request, CREDENTIALS.secretAccessKey)).toBeUndefined();
  });

  it('treats a 200 whose body is an <Error> as a failure, and gives up after three attempts with its code', async () => {
    const error =
      '<?xml version="1.0"?><Error><Code>InternalError</Code><Message>We encountered an internal error</Message></Error>';
    script.push({ status: 200, body: error }, { status: 200, body: error }, { status: 200, body: error });

    await expect(
      rest().send({ method: 'POST', key: 'k', query: { uploadId: 'u' }, body: '<x/>' }),
    ).rejects.toMatchObject({
      name: 'S3Error',
      code: 'InternalError',
      message: 'We encountered an internal error',
    });
    expect(seen).toHaveLength(3);
  });

  it('does not retry a 4xx, and fails with S3’s code and status', async () => {
    script.push({ status: 403, body: '<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>' });

    await expect(rest().send({ method: 'PUT', key: 'k', body: 'x' })).rejects.toMatchObject({
      code: 'AccessDenied',
      statusCode: 403,
    });
    expect(seen).toHaveLength(1);
  });
});
