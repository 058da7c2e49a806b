import type { LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { checkWebhookUrl, URL_REFUSALS, WebhookUrlNotAllowedError } from '#shared/domain/webhooks/ssrf-policy';
import { type LookupAll, pinnedLookup, resolveTarget, systemLookup } from './resolver.ts';

export interface WebhookSenderOptions {
  /** `WEBHOOK_ALLOW_PRIVATE_TARGETS`: allows http, any port and private addresses (local stack, tests). */
  allowPrivate: boolean;
  /** Budget of one attempt: DNS, connect, request and response headers (CONTRACT §7: 2xx within 10 s). @default 10000 */
  timeoutMs?: number;
  /** @default dns.lookup */
  lookup?: LookupAll;
}

/** Why an attempt failed without a usable answer; fixed codes, safe to show the customer as `lastError`. */
export type WebhookSendError =
  | 'timeout'
  | 'url_not_allowed'
  | 'dns_failed'
  | 'connection_refused'
  | 'connection_reset'
  | 'tls_error'
  | 'connection_failed'
  | 'redirect_not_followed';

export interface WebhookSendResult {
  /** A 2xx answer. */
  ok: boolean;
  statusCode?: number;
  /** From `Retry-After` (seconds or an HTTP date) on 429 and 503 only. */
  retryAfterSeconds?: number;
  latencyMs: number;
  error?: WebhookSendError;
  /** 410: the receiver asks us to disable the subscription. */
  gone: boolean;
  /** The first 1 KiB of the answer (UTF-8), for the delivery log. */
  responseBody?: string;
}

/**
 * Only the start of an answer is kept for the delivery log (CONTRACT §12: the first 1 KiB); a huge or endless body
 * must not cost more, so reading stops there.
 */
export const MAX_RESPONSE_BYTES = 1024;

interface Answer {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * Posts webhook deliveries with the SSRF guard of CONTRACT §7. Every call parses the URL with the policy, resolves
 * the host once, refuses forbidden addresses and connects only to the addresses it checked (DNS pinning), so a
 * rebinding DNS answer between subscription and send reaches nothing. Redirects are never followed.
 * With `allowPrivate` the address check is skipped, but resolution and pinning run through the same code.
 */
export class WebhookSender {
  readonly #allowPrivate: boolean;
  readonly #timeoutMs: number;
  readonly #lookup: LookupAll;

  constructor(options: WebhookSenderOptions) {
    this.#allowPrivate = options.allowPrivate;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#lookup = options.lookup ?? systemLookup;
  }

  /**
   * The subscription-time check: the policy, then one resolution of the host. Returns the parsed URL.
   * @throws WebhookUrlNotAllowedError (422 WEBHOOK_URL_NOT_ALLOWED) with a customer-safe reason.
   */
  async validate(url: string): Promise<URL> {
    const checked = checkWebhookUrl(url, { allowPrivate: this.#allowPrivate });
    if (!checked.ok) throw new WebhookUrlNotAllowedError(checked.reason);
    try {
      await abortable(this.#resolve(checked.hostname), AbortSignal.timeout(this.#timeoutMs));
    } catch (error) {
      if (error instanceof WebhookUrlNotAllowedError) throw error;
      throw new WebhookUrlNotAllowedError(URL_REFUSALS.unresolvable);
    }
    return checked.url;
  }

  /** One delivery attempt. Never throws: every failure is a result, so the caller can record and schedule it. */
  async send(
    url: string,
    request: { headers: Record<string, string>; body: string },
    options: { timeoutMs?: number } = {},
  ): Promise<WebhookSendResult> {
    const started = performance.now();
    const latencyMs = () => Math.round(performance.now() - started);
    const checked = checkWebhookUrl(url, { allowPrivate: this.#allowPrivate });
    if (!checked.ok) return { ok: false, gone: false, latencyMs: latencyMs(), error: 'url_not_allowed' };

    const signal = AbortSignal.timeout(options.timeoutMs ?? this.#timeoutMs);
    let answer: Answer;
    try {
      const addresses = await abortable(this.#resolve(checked.hostname), signal);
      answer = await post(checked.url, checked.hostname, addresses, request, signal);
    } catch (error) {
      return { ok: false, gone: false, latencyMs: latencyMs(), error: signal.aborted ? 'timeout' : failure(error) };
    }

    const { statusCode, headers, body } = answer;
    const throttled = statusCode === 429 || statusCode === 503;
    const retryAfter = throttled ? parseRetryAfter(headers['retry-after']) : undefined;
    return {
      ok: statusCode >= 200 && statusCode < 300,
      statusCode,
      latencyMs: latencyMs(),
      gone: statusCode === 410,
      responseBody: body,
      ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
      ...(statusCode >= 300 && statusCode < 400 ? { error: 'redirect_not_followed' as const } : {}),
    };
  }

  #resolve(hostname: string): Promise<LookupAddress[]> {
    return resolveTarget(hostname, { allowPrivate: this.#allowPrivate, lookup: this.#lookup });
  }
}

/** POSTs the exact body to the pinned addresses; resolves once the headers and at most 1 KiB of body are in. */
function post(
  url: URL,
  hostname: string,
  addresses: LookupAddress[],
  request: { headers: Record<string, string>; body: string },
  signal: AbortSignal,
): Promise<Answer> {
  const secure = url.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const outgoing = (secure ? httpsRequest : httpRequest)({
      method: 'POST',
      host: hostname,
      port: url.port || (secure ? 443 : 80),
      path: url.pathname + url.search,
      headers: {
        'user-agent': 'wp-crm-webhooks/1',
        ...request.headers,
        host: url.host,
        'content-length': String(Buffer.byteLength(request.body)),
      },
      lookup: pinnedLookup(addresses),
      // Certificates are checked against the name, not the pinned address; SNI must not carry an IP literal.
      ...(secure && !isIP(hostname) ? { servername: hostname } : {}),
      // A fresh socket each time: a pooled one could have been opened to an address checked for another URL.
      agent: false,
      signal,
    });
    outgoing.on('error', reject);
    outgoing.on('response', (response) => {
      // The status is in: a timeout or reset while reading the body no longer changes the outcome.
      outgoing.off('error', reject).on('error', () => {});
      readCapped(response).then((body) => {
        outgoing.destroy();
        resolve({ statusCode: response.statusCode ?? 0, headers: response.headers, body });
      });
    });
    outgoing.end(request.body);
  });
}

/** Resolves with up to MAX_RESPONSE_BYTES and then drops the connection; a broken or endless body just ends early. */
function readCapped(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => resolve(Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString('utf8'));
    response.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= MAX_RESPONSE_BYTES) {
        response.destroy();
        done();
      }
    });
    response.on('end', done);
    response.on('error', done);
    response.on('close', done);
  });
}

/** `Retry-After` is delta-seconds or an HTTP date (RFC 9110 §10.2.3); anything else is ignored. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** A transport error as a fixed code; the system message (which may name internal addresses) is never kept. */
function failure(error: unknown): WebhookSendError {
  if (error instanceof WebhookUrlNotAllowedError) return 'url_not_allowed';
  const code = String((error as { code?: unknown } | undefined)?.code ?? '');
  if (['ENOTFOUND', 'EAI_AGAIN', 'ENODATA', 'ESERVFAIL'].includes(code)) return 'dns_failed';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection_reset';
  if (/^ERR_(TLS|SSL)_|CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return 'tls_error';
  return 'connection_failed';
}
