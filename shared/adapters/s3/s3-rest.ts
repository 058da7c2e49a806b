import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentityProvider, Checksum, HttpRequest, SourceData } from '@smithy/types';
import { backoffSeconds } from '#shared/queue/retry';

/**
 * The few S3 object operations the report functions make (PutObject, the multipart upload calls, a pre-signed
 * GetObject), as REST requests signed with AWS's own SigV4 signer (`@smithy/signature-v4`) and sent with Node's
 * HTTP client. `@aws-sdk/client-s3` would carry S3's whole endpoint rule set, its REST-XML protocol and every operation's
 * schema into both functions: about 150 KB and a third of their import time (bench/RESULTS.md, P1). The requests go
 * over node:http(s), not fetch, which copies every body (bench/RESULTS.md, P3).
 *
 * Every request signs its payload's SHA-256 (`x-amz-content-sha256`), so S3 refuses a body altered on the way.
 */
export interface S3Location {
  bucket: string;
  region: string;
  /** A custom endpoint (the local stack's): path-style `<endpoint>/<bucket>/<key>`. Unset: the regional endpoint. */
  endpoint?: string;
}

export interface S3Call {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  key: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

export interface S3Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** An error S3 answered (its `<Code>`), or the last of the retried failures. */
export class S3Error extends Error {
  constructor(
    readonly code: string,
    readonly statusCode: number | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'S3Error';
  }
}

export interface S3RestOptions {
  credentials: AwsCredentialIdentityProvider;
  /** Per attempt, in ms. */
  requestTimeoutMs: number;
  /** Attempts per call, the first included (network errors, 5xx and 429 are retried). */
  maxAttempts?: number;
}

export class S3Rest {
  readonly #signer: SignatureV4;

  constructor(
    readonly location: S3Location,
    private readonly options: S3RestOptions,
  ) {
    this.#signer = new SignatureV4({
      service: 's3',
      region: location.region,
      credentials: options.credentials,
      sha256: NodeSha256,
      // S3 signs the path as sent, without encoding it a second time.
      uriEscapePath: false,
      applyChecksum: true,
    });
  }

  /** Sends a signed request; retries network errors, 5xx and 429 with backoff; throws S3Error on an error answer. */
  async send(call: S3Call): Promise<S3Answer> {
    const attempts = this.options.maxAttempts ?? 3;
    for (let attempt = 1; ; attempt++) {
      let answer: S3Answer;
      try {
        answer = await this.#sendOnce(call);
      } catch (error) {
        if (attempt >= attempts) {
          const cause = (error as Error).cause as Error | undefined;
          const reason = cause?.message ? `${(error as Error).message}: ${cause.message}` : (error as Error).message;
          throw new S3Error('NetworkingError', undefined, reason);
        }
        await backoff(attempt);
        continue;
      }
      // CompleteMultipartUpload may answer 200 with an <Error> body.
      const failed = answer.status >= 300 || /^\s*(<\?xml[^>]*\?>)?\s*<Error>/.test(answer.text);
      if (!failed) return answer;
      const retryable = answer.status >= 500 || answer.status === 429 || answer.status < 300;
      if (retryable && attempt < attempts) {
        await backoff(attempt);
        continue;
      }
      const code = xmlText(answer.text, 'Code') ?? `Http${answer.status}`;
      throw new S3Error(code, answer.status, xmlText(answer.text, 'Message') ?? `S3 answered ${answer.status}`);
    }
  }

  /** A pre-signed GET URL for an object, valid for `expiresInSeconds`; `query` holds the response-* overrides. */
  async presignGet(key: string, query: Record<string, string>, expiresInSeconds: number): Promise<string> {
    const request = this.#request({ method: 'GET', key, query });
    request.headers['X-Amz-Content-Sha256'] = 'UNSIGNED-PAYLOAD';
    const signed = await this.#signer.presign(request, { expiresIn: expiresInSeconds });
    return urlOf(signed);
  }

  async #sendOnce(call: S3Call): Promise<S3Answer> {
    const signed = await this.#signer.sign(this.#request(call));
    const { host: _host, ...headers } = signed.headers;
    return exchange(urlOf(signed), call.method, headers, call.body, this.options.requestTimeoutMs);
  }

  #request(call: S3Call): HttpRequest {
    const path = call.key.split('/').map(encodeRfc3986).join('/');
    const { endpoint, bucket, region } = this.location;
    const base = new URL(endpoint ?? `https://${bucket}.s3.${region}.amazonaws.com`);
    const prefix = base.pathname.replace(/\/$/, '');
    return {
      method: call.method,
      protocol: base.protocol,
      hostname: base.hostname,
      port: base.port ? Number(base.port) : undefined,
      path: endpoint ? `${prefix}/${encodeRfc3986(bucket)}/${path}` : `/${path}`,
      query: { ...call.query },
      headers: { host: base.host, ...call.headers },
      body: call.body,
    };
  }
}

/** The text of the first `<tag>` in an XML answer, entities decoded. */
export function xmlText(xml: string, tag: string): string | undefined {
  const match = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml);
  return match ? decodeXml(match[1]!) : undefined;
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function decodeXml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&amp;/g, '&');
}

/** Percent-encoding as SigV4 canonicalises it: everything but A–Z a–z 0–9 - . _ ~ */
function encodeRfc3986(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function urlOf(request: HttpRequest): string {
  const query = Object.entries(request.query ?? {})
    .map(([name, value]) => `${encodeRfc3986(name)}=${encodeRfc3986(String(value))}`)
    .join('&');
  const port = request.port ? `:${request.port}` : '';
  return `${request.protocol}//${request.hostname}${port}${request.path}${query ? `?${query}` : ''}`;
}

/**
 * One request and its answer over node:http(s). A Buffer body goes to the socket as it is, so a part costs no memory
 * beyond its own buffer; Node's fetch copies a body twice before sending it (20 MiB more per 5 MiB part in flight).
 */
async function exchange(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: Buffer | string | undefined,
  timeoutMs: number,
): Promise<S3Answer> {
  const target = new URL(url);
  // Loaded on first use: a function that only pre-signs URLs never pays for TLS's modules.
  const { request: send } = target.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise((resolve, reject) => {
    const length = body === undefined ? 0 : Buffer.byteLength(body);
    const request = send(
      target,
      { method, headers: { ...headers, 'content-length': String(length) }, signal: AbortSignal.timeout(timeoutMs) },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const answerHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
              answerHeaders.append(name, item);
            }
          }
          resolve({
            status: response.statusCode ?? 0,
            headers: answerHeaders,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

function backoff(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, backoffSeconds(0.1, attempt) * 1000));
}

/** SHA-256 and HMAC-SHA-256 from node:crypto, in the shape the signer asks for. */
export class NodeSha256 implements Checksum {
  #hash: Hash | Hmac;

  constructor(private readonly secret?: SourceData) {
    this.#hash = this.#fresh();
  }

  update(data: Uint8Array): void {
    this.#hash.update(data);
  }

  async digest(): Promise<Uint8Array> {
    return this.#hash.digest();
  }

  reset(): void {
    this.#hash = this.#fresh();
  }

  #fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', toBytes(this.secret));
  }
}

function toBytes(data: SourceData): Uint8Array | string {
  if (typeof data === 'string') return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return new Uint8Array(data);
}
