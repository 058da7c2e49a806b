/** Delivers webhook requests under the SSRF policy (DNS-pinned, no redirects, bounded time and answer). */
export interface WebhookSendOutcome {
  ok: boolean;
  statusCode?: number;
  retryAfterSeconds?: number;
  latencyMs: number;
  error?: string;
  gone: boolean;
  /** The start of the receiver's answer (at most 1 KiB, as text), for the delivery log. */
  responseBody?: string;
}

export interface WebhookTransport {
  /** Refuses a URL the policy forbids (422 WEBHOOK_URL_NOT_ALLOWED). */
  validate(url: string): Promise<URL>;
  /** One attempt within `timeoutMs` (default 10 s); never throws. */
  send(
    url: string,
    request: { headers: Record<string, string>; body: string },
    options?: { timeoutMs?: number },
  ): Promise<WebhookSendOutcome>;
}
