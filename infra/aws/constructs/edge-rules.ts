import { BASE_PATH } from '#shared/routes/route';

/**
 * AWS WAF's rate-based rules at the edge (CONTRACT §18): requests from one source address per 5-minute window,
 * counted and blocked by CloudFront before they reach API Gateway, so that no single address can use up the shared
 * route throttles of `POST /token` or the network webhook. Each limit sits below the route throttle it protects
 * (README, Architecture notes, has the reasoning per figure).
 */
export interface EdgeRateRule {
  /** The rule's name and metric name. */
  name: string;
  /** Only requests on this path (and method) count; none = every request. */
  path?: string;
  method?: 'GET' | 'POST';
  /** Requests on this path prefix do not count (they have a rule of their own). */
  exceptPath?: string;
  /** Requests per address per `EDGE_WINDOW_SECONDS`, WAF's minimum being 10. */
  limit: number;
}

export const EDGE_WINDOW_SECONDS = 300;

export const NETWORK_WEBHOOK_PATH = `${BASE_PATH}/network/whatsapp/webhook`;

export const EDGE_RATE_RULES: readonly EdgeRateRule[] = [
  // A client needs a token an hour; 100 tries in 5 minutes is more than any integration behind one address makes,
  // and keeps one address at a third of a request per second against the route's 20/s.
  { name: 'TokenPerAddress', path: `${BASE_PATH}/token`, method: 'POST', limit: 100 },
  // Meta sends notifications from many addresses; 1,000/s from a single one is far above what one of Meta's senders
  // carries at the capacity plan's volume (docs/SCALE.md) and far below the route's 12,000/s, so one address of
  // unsigned junk cannot starve Meta's own posts. Meta's published ranges can be exempted (MetaWebhookSources).
  { name: 'NetworkWebhookPerAddress', path: NETWORK_WEBHOOK_PATH, method: 'POST', limit: 300_000 },
  // Meta's verification handshake happens when the callback URL is set: a handful of requests.
  { name: 'NetworkHandshakePerAddress', path: NETWORK_WEBHOOK_PATH, method: 'GET', limit: 100 },
  // Everything else: 80/s per address, four times one organisation's API quota (ORG_REQUEST_RATE_LIMIT 1200/60),
  // for platforms that serve several organisations from one egress address.
  { name: 'ApiPerAddress', exceptPath: NETWORK_WEBHOOK_PATH, limit: 24_000 },
];

/** The body WAF answers a blocked request with: the contract's problem fields (WAF can only say application/json). */
export const EDGE_BLOCK_BODY = JSON.stringify({
  type: 'https://wp-crm.dev/problems/rate-limited',
  title: 'Rate limited',
  status: 429,
  detail: 'too many requests from this address; try again later',
  code: 'RATE_LIMITED',
});

/** Seconds a blocked address is told to wait: one WAF evaluation period, after which its count has decayed. */
export const EDGE_RETRY_AFTER_SECONDS = 60;
