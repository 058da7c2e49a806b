import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The key pair every client of the local stack signs its AWS calls with: the handlers (npm start), start:cdk's
 * gateway when it forwards a function's call, the CLI, tests and benchmarks. s3rver insists on this key id.
 * It is not a secret — the embedded servers listen on loopback only; requiring it keeps requests that were not made
 * by the stack's own clients out (a web page, an unsigned GET of a report file), together with the Origin and Host
 * checks of infra/local/loopback-guard.ts.
 */
export const LOCAL_AWS_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

export interface SignedRequest {
  method: string;
  /** Path and query, as sent (`request.url`). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body, when the payload hash is not in a header (DynamoDB). */
  body?: Buffer;
}

export type Verdict = { ok: true } | { ok: false; reason: string };

const ALGORITHM = 'AWS4-HMAC-SHA256';
/** The most a pre-signed URL may live (S3's own limit, 7 days). */
const MAX_EXPIRES_SECONDS = 7 * 24 * 3600;
/** How far a header-signed request's time may be from now (AWS allows 15 minutes). */
const MAX_SKEW_MS = 15 * 60 * 1000;

/**
 * Checks an AWS Signature Version 4, in the Authorization header or in the query (pre-signed URLs), against
 * `credentials`: the canonical request is rebuilt from the signed headers as AWS defines it and signed again.
 */
export function verifySignature(
  request: SignedRequest,
  credentials: { accessKeyId: string; secretAccessKey: string },
  now = new Date(),
): Verdict {
  const [path = '/', rawQuery = ''] = splitOnce(request.url, '?');
  const query = parseQuery(rawQuery);
  const header = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(',') : value;
  };
  const presigned = query.some(([name]) => name === 'X-Amz-Signature');
  let auth: { credential: string; signedHeaders: string; signature: string; date: string };
  if (presigned) {
    const param = (name: string) => query.find(([key]) => key === name)?.[1] ?? '';
    if (param('X-Amz-Algorithm') !== ALGORITHM) return no('not a SigV4 pre-signed URL');
    const expires = Number(param('X-Amz-Expires'));
    const signedAt = parseAmzDate(param('X-Amz-Date'));
    if (!signedAt || !Number.isInteger(expires) || expires < 1 || expires > MAX_EXPIRES_SECONDS) {
      return no('malformed pre-signed URL');
    }
    if (now.getTime() > signedAt.getTime() + expires * 1000) return no('the pre-signed URL has expired');
    auth = {
      credential: param('X-Amz-Credential'),
      signedHeaders: param('X-Amz-SignedHeaders'),
      signature: param('X-Amz-Signature'),
      date: param('X-Amz-Date'),
    };
  } else {
    const match = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(
      header('authorization') ?? '',
    );
    if (!match) return no('no SigV4 signature');
    const date = header('x-amz-date') ?? '';
    const signedAt = parseAmzDate(date);
    if (!signedAt || Math.abs(now.getTime() - signedAt.getTime()) > MAX_SKEW_MS) return no('x-amz-date is off');
    auth = { credential: match[1]!, signedHeaders: match[2]!, signature: match[3]!, date };
  }

  const [accessKeyId, scopeDate, region, service, terminator] = auth.credential.split('/');
  if (accessKeyId !== credentials.accessKeyId) return no('signed with another key');
  if (terminator !== 'aws4_request' || !scopeDate || !region || !service || !auth.date.startsWith(scopeDate)) {
    return no('malformed credential scope');
  }
  const signedHeaders = auth.signedHeaders.split(';');
  if (!signedHeaders.includes('host')) return no('the host is not signed');
  const canonicalHeaders = signedHeaders
    .map((name) => `${name}:${(header(name) ?? '').trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const payloadHash = presigned
    ? (header('x-amz-content-sha256') ?? 'UNSIGNED-PAYLOAD')
    : (header('x-amz-content-sha256') ?? sha256Hex(request.body ?? Buffer.alloc(0)));
  const canonicalQuery = query
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => [uriEncode(name), uriEncode(value)] as const)
    .sort(([a, av], [b, bv]) => (a === b ? compare(av, bv) : compare(a, b)))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  // S3 signs the path as sent; every other service encodes it once more.
  const canonicalPath = service === 's3' ? path : path.split('/').map(uriEncode).join('/');
  const canonicalRequest = [
    request.method,
    canonicalPath,
    canonicalQuery,
    canonicalHeaders,
    auth.signedHeaders,
    payloadHash,
  ].join('\n');
  const scope = `${scopeDate}/${region}/${service}/aws4_request`;
  const stringToSign = [ALGORITHM, auth.date, scope, sha256Hex(Buffer.from(canonicalRequest))].join('\n');
  let key: Buffer = hmac(`AWS4${credentials.secretAccessKey}`, scopeDate);
  for (const part of [region, service, 'aws4_request']) key = hmac(key, part);
  const expected = hmac(key, stringToSign);
  const given = Buffer.from(auth.signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return no('the signature does not match');
  return { ok: true };
}

const no = (reason: string): Verdict => ({ ok: false, reason });

const sha256Hex = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at + 1)];
}

function parseQuery(raw: string): [string, string][] {
  if (!raw) return [];
  return raw.split('&').map((pair) => {
    const [name, value] = splitOnce(pair, '=');
    return [decode(name), decode(value)];
  });
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, '%20'));
  } catch {
    return text;
  }
}

/** RFC 3986 unreserved characters stay, everything else is percent-encoded (SigV4's URI encoding). */
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

function parseAmzDate(value: string): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  return new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!));
}
