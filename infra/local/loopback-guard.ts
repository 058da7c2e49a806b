import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { LOCAL_AWS_CREDENTIALS, verifySignature } from './sigv4.ts';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

export interface LoopbackGuardOptions {
  /** The port the server listens on (known once it listens). */
  port: () => number;
  /** DynamoDB signs the body's hash into the signature; S3 sends it in a signed header. */
  readsBody: boolean;
  /** Answers a refused request in the protocol of the server behind. */
  refuse: (response: ServerResponse, reason: string) => void;
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * The embedded DynamoDB and S3 servers answer only the local stack's own clients (issue: any web page in the
 * developer's browser could read the table and the report files otherwise):
 * - a request that carries `Origin` comes from a browser page — refused, preflights included, so no page can read an
 *   answer (dynalite would answer CORS `*`);
 * - a `Host` other than the loopback name and this port is a DNS-rebinding page — refused;
 * - a request not signed with the local key (LOCAL_AWS_CREDENTIALS), in the Authorization header or as a pre-signed
 *   URL, is refused: an unsigned GET of a report file, for one.
 * Installs itself in front of the server's own request handlers.
 */
export function guardLoopback(server: Server, options: LoopbackGuardOptions): void {
  const handlers = server.listeners('request') as Handler[];
  server.removeAllListeners('request');
  const pass = (request: IncomingMessage, response: ServerResponse) => {
    for (const handler of handlers) handler.call(server, request, response);
  };
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (request.headers.origin !== undefined) return options.refuse(response, 'requests from web pages are refused');
    const host = (request.headers.host ?? '').toLowerCase();
    if (!LOOPBACK_NAMES.some((name) => host === `${name}:${options.port()}`)) {
      return options.refuse(response, `Host must be 127.0.0.1:${options.port()}`);
    }
    if (!options.readsBody) {
      const verdict = verifySignature(
        { method: request.method ?? 'GET', url: request.url ?? '/', headers: request.headers },
        LOCAL_AWS_CREDENTIALS,
      );
      return verdict.ok ? pass(request, response) : options.refuse(response, verdict.reason);
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('error', () => request.socket.destroy());
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const verdict = verifySignature(
        { method: request.method ?? 'POST', url: request.url ?? '/', headers: request.headers, body },
        LOCAL_AWS_CREDENTIALS,
      );
      if (!verdict.ok) return options.refuse(response, verdict.reason);
      pass(replay(request, body), response);
    });
  });
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
