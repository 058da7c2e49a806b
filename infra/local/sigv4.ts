import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** An access key: what a client signs its AWS calls with, and what a local endpoint checks them against. */
export interface LocalCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/**
 * A fresh key pair for one run of a local stack (CONTRACT §21): the handlers (npm start), start:cdk's gateway when it
 * forwards a function's call, the CLI, tests and benchmarks sign with it, and the embedded DynamoDB and S3 servers
 * and the SQS / EventBridge emulator refuse any other signature. It lives only in the stack's process, in the
 * environment it gives its handlers, and in `$WPCRM_DATA_DIR/stack.json` (mode 0600), where the CLI and the tests
 * read it; a web page cannot learn it and a key seen once does not open the next run.
 */
export function newLocalCredentials(): LocalCredentials {
  return { accessKeyId: `AKIA${randomHex(8)}`, secretAccessKey: randomBytes(30).toString('base64url') };
}

/** A fresh role session for one of start:cdk's functions: its own key pair and session token for this run. */
export function newSessionCredentials(): LocalCredentials & { sessionToken: string } {
  return {
    accessKeyId: `ASIA${randomHex(8)}`,
    secretAccessKey: randomBytes(30).toString('base64url'),
    sessionToken: randomBytes(32).toString('base64'),
  };
}

const randomHex = (bytes: number) => randomBytes(bytes).toString('hex').toUpperCase();

export interface SignedRequest {
  method: string;
  /** Path and query, as sent (`request.url`). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body, when the payload hash is not in a header (DynamoDB). */
  body?: Buffer;
}

/**
 * Why a request was refused: `unsigned` (no SigV4 signature at all), `unknown-key` (signed with a key the endpoint
 * does not know), `invalid` (the signature, its scope or its time do not hold). Each protocol names them its own way.
 */
export type RefusalKind = 'unsigned' | 'unknown-key' | 'invalid';

export type Verdict = { ok: true } | { ok: false; kind: RefusalKind; reason: string };

const ALGORITHM = 'AWS4-HMAC-SHA256';
/** The most a pre-signed URL may live (S3's own limit, 7 days). */
const MAX_EXPIRES_SECONDS = 7 * 24 * 3600;
/** How far a header-signed request's time may be from now (AWS allows 15 minutes). */
const MAX_SKEW_MS = 15 * 60 * 1000;

/**
 * Checks an AWS Signature Version 4, in the Authorization header or in the query (pre-signed URLs), against
 * `credentials` (one key, or a lookup by access key id): the canonical request is rebuilt from the signed headers as
 * AWS defines it and signed again.
 */
export function verifySignature(
  request: SignedRequest,
  credentials: LocalCredentials | ((accessKeyId: string) => LocalCredentials | undefined),
  now = new Date(),
): Verdict {
  const [path = '/', rawQuery = ''] = splitOnce(request.url, '?');
  const query = parseQuery(rawQuery);
  const header = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(',') : value;
  };
  const presigned = query.some(([name]) => name === 'X-Amz-Signature');
  const auth = presigned ? presignedAuth(query, now) : headerAuth(header, now);
  if ('ok' in auth) return auth;

  const [accessKeyId, scopeDate, region, service, terminator] = auth.credential.split('/');
  const key =
    typeof credentials === 'function'
      ? credentials(accessKeyId ?? '')
      : accessKeyId === credentials.accessKeyId
        ? credentials
        : undefined;
  if (!key) return no('signed with another key', 'unknown-key');
  if (terminator !== 'aws4_request' || !scopeDate || !region || !service || !auth.date.startsWith(scopeDate)) {
    return no('malformed credential scope');
  }
  if (!auth.signedHeaders.split(';').includes('host')) return no('the host is not signed');
  const canonical = canonicalRequest({ request, path, query, header, presigned, service, auth });
  const scope = `${scopeDate}/${region}/${service}/aws4_request`;
  const stringToSign = [ALGORITHM, auth.date, scope, sha256Hex(Buffer.from(canonical))].join('\n');
  let signingKey: Buffer = hmac(`AWS4${key.secretAccessKey}`, scopeDate);
  for (const part of [region, service, 'aws4_request']) signingKey = hmac(signingKey, part);
  const expected = hmac(signingKey, stringToSign);
  const given = Buffer.from(auth.signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return no('the signature does not match');
  return { ok: true };
}

/** A signature as the request carries it, in the query or in the Authorization header. */
interface SignatureParts {
  credential: string;
  signedHeaders: string;
  signature: string;
  date: string;
}

/** A pre-signed URL's signature, unless the URL is malformed or has expired. */
function presignedAuth(query: [string, string][], now: Date): SignatureParts | Verdict {
  const param = (name: string) => query.find(([key]) => key === name)?.[1] ?? '';
  if (param('X-Amz-Algorithm') !== ALGORITHM) return no('not a SigV4 pre-signed URL');
  const expires = Number(param('X-Amz-Expires'));
  const signedAt = parseAmzDate(param('X-Amz-Date'));
  if (!signedAt || !Number.isInteger(expires) || expires < 1 || expires > MAX_EXPIRES_SECONDS) {
    return no('malformed pre-signed URL');
  }
  if (now.getTime() > signedAt.getTime() + expires * 1000) return no('the pre-signed URL has expired');
  return {
    credential: param('X-Amz-Credential'),
    signedHeaders: param('X-Amz-SignedHeaders'),
    signature: param('X-Amz-Signature'),
    date: param('X-Amz-Date'),
  };
}

/** The Authorization header's signature, unless it is missing, malformed or its time is off. */
function headerAuth(header: (name: string) => string | undefined, now: Date): SignatureParts | Verdict {
  const authorization = header('authorization');
  if (authorization === undefined) return no('the request is not signed', 'unsigned');
  const match = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(
    authorization,
  );
  if (!match) return no('no SigV4 signature');
  const date = header('x-amz-date') ?? '';
  const signedAt = parseAmzDate(date);
  if (!signedAt || Math.abs(now.getTime() - signedAt.getTime()) > MAX_SKEW_MS) return no('x-amz-date is off');
  return { credential: match[1]!, signedHeaders: match[2]!, signature: match[3]!, date };
}

/** The canonical request, rebuilt from the signed headers as AWS defines it. */
function canonicalRequest(parts: {
  request: SignedRequest;
  path: string;
  query: [string, string][];
  header: (name: string) => string | undefined;
  presigned: boolean;
  service: string;
  auth: SignatureParts;
}): string {
  const { request, path, query, header, presigned, service, auth } = parts;
  const canonicalHeaders = auth.signedHeaders
    .split(';')
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
  return [request.method, canonicalPath, canonicalQuery, canonicalHeaders, auth.signedHeaders, payloadHash].join('\n');
}

const no = (reason: string, kind: RefusalKind = 'invalid'): Verdict => ({ ok: false, kind, reason });

/**
 * Who signed a request and for which service, as its SigV4 credential scope says (Authorization header, else a
 * pre-signed URL's X-Amz-Credential), before anything is verified: it picks the error format of a refusal.
 */
export function signingScope(
  request: Pick<SignedRequest, 'url' | 'headers'>,
): { accessKeyId: string; service: string } | undefined {
  const authorization = request.headers.authorization;
  const fromHeader = /Credential=([^,\s]+)/.exec(
    Array.isArray(authorization) ? authorization[0]! : (authorization ?? ''),
  );
  const credential =
    fromHeader?.[1] ?? parseQuery(splitOnce(request.url, '?')[1]).find(([name]) => name === 'X-Amz-Credential')?.[1];
  const parts = credential?.split('/') ?? [];
  return parts.length >= 4 && parts[0] ? { accessKeyId: parts[0], service: parts.at(-2)! } : undefined;
}

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
