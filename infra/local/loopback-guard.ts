import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { type LocalCredentials, type RefusalKind, verifySignature } from './sigv4.ts';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * Why a local endpoint refused a request: `origin` (a web page sent it), `host` (not its loopback name and port: DNS
 * rebinding), or the signature's refusal (`unsigned`, `unknown-key`, `invalid`).
 */
export type GuardRefusal = 'origin' | 'host' | RefusalKind;

export type Admission = { ok: true } | { ok: false; kind: GuardRefusal; reason: string };

export interface LoopbackGuardOptions {
  /** The port the server listens on (known once it listens). */
  port: () => number;
  /** DynamoDB signs the body's hash into the signature; S3 sends it in a signed header. */
  readsBody: boolean;
  /** The stack's key for this run (infra/local/sigv4.ts `newLocalCredentials`): the only signature let in. */
  credentials: LocalCredentials;
  /** Answers a refused request in the protocol of the server behind. */
  refuse: (response: ServerResponse, reason: string, kind: GuardRefusal) => void;
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * Whether a request can come from the local stack's own clients rather than from a web page in the developer's
 * browser (CONTRACT §21): a request that carries `Origin` comes from a page (fetch, a form, a CORS preflight) and is
 * refused, so no page can read an answer; a `Host` other than the loopback name and `port` is a DNS-rebinding page
 * and is refused.
 */
export function fromLoopback(request: Pick<IncomingMessage, 'headers'>, port: number): Admission {
  if (request.headers.origin !== undefined) {
    return { ok: false, kind: 'origin', reason: 'requests from web pages are refused' };
  }
  const host = (request.headers.host ?? '').toLowerCase();
  if (!LOOPBACK_NAMES.some((name) => host === `${name}:${port}`)) {
    return { ok: false, kind: 'host', reason: `Host must be 127.0.0.1:${port}` };
  }
  return { ok: true };
}

/**
 * A local AWS-protocol endpoint's whole check: from loopback (above), and SigV4-signed with `credentials` (the
 * stack's key, or a lookup by access key id), in the Authorization header or as a pre-signed URL. `body` is the
 * request's body when the payload hash is not in a signed header (the AWS JSON protocols).
 */
export function admitSigned(
  request: Pick<IncomingMessage, 'headers' | 'method' | 'url'>,
  port: number,
  credentials: LocalCredentials | ((accessKeyId: string) => LocalCredentials | undefined),
  body?: Buffer,
): Admission {
  const local = fromLoopback(request, port);
  if (!local.ok) return local;
  return verifySignature(
    { method: request.method ?? 'GET', url: request.url ?? '/', headers: request.headers, body },
    credentials,
  );
}

/**
 * The embedded DynamoDB and S3 servers answer only the local stack's own clients (issue: any web page in the
 * developer's browser could read the table and the report files otherwise): `admitSigned` with the stack's key of
 * this run. Installs itself in front of the server's own request handlers.
 */
export function guardLoopback(server: Server, options: LoopbackGuardOptions): void {
  const handlers = server.listeners('request') as Handler[];
  server.removeAllListeners('request');
  const pass = (request: IncomingMessage, response: ServerResponse) => {
    for (const handler of handlers) handler.call(server, request, response);
  };
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (!options.readsBody) {
      const verdict = admitSigned(request, options.port(), options.credentials);
      return verdict.ok ? pass(request, response) : options.refuse(response, verdict.reason, verdict.kind);
    }
    const local = fromLoopback(request, options.port());
    if (!local.ok) return options.refuse(response, local.reason, local.kind);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('error', () => request.socket.destroy());
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const verdict = admitSigned(request, options.port(), options.credentials, body);
      if (!verdict.ok) return options.refuse(response, verdict.reason, verdict.kind);
      pass(replay(request, body), response);
    });
  });
}

/**
 * A diagnostic route of a local stack (start:cdk's `GET /_local/iam`): from loopback — `Host` the loopback name and
 * the port the request came in on — and carrying the run's local-routes token (`localRoutesToken` in stack.json) as
 * `Authorization: Bearer <token>`. Returns the refusal to answer (401 without the token), or undefined.
 */
export function refuseLocalRoute(
  request: Pick<IncomingMessage, 'headers' | 'socket'>,
  token: string | undefined,
): { status: 401 | 403; message: string } | undefined {
  const local = fromLoopback(request, request.socket.localPort ?? -1);
  if (!local.ok) return { status: 403, message: local.reason };
  const given = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (!token || !given || !sameSecret(given, token)) {
    return {
      status: 401,
      message: 'send Authorization: Bearer <localRoutesToken of $WPCRM_DATA_DIR/stack.json>',
    };
  }
  return undefined;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The request again, its body read: the server behind reads it as it would have read the original. */
function replay(request: IncomingMessage, body: Buffer): IncomingMessage {
  const copy = Readable.from(body.length > 0 ? [body] : []) as unknown as IncomingMessage;
  return Object.assign(copy, {
    method: request.method,
    url: request.url,
    headers: request.headers,
    rawHeaders: request.rawHeaders,
    httpVersion: request.httpVersion,
    socket: request.socket,
    connection: request.socket,
  });
}
