import { BASE_PATH } from '#shared/routes/route';

/**
 * AWS WAF's rate-based rules at the edge (CONTRACT §18): requests from one source address per 5-minute window,
 * counted and blocked by CloudFront before they reach API Gateway, so that no single address can use up the shared
 * route throttles of `POST /token` or the network webhook. Each limit sits below the route throttle it protects
 * (docs/deployment.md, the edge, has the reasoning per figure).
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

/**
 * Seconds a blocked address is told to wait (`Retry-After`): one evaluation window and WAF's release delay.
 *
 * A rate-based rule has no block duration of its own. WAF re-estimates each address's count over the last
 * `EDGE_WINDOW_SECONDS` frequently, "with timing that's independent of the evaluation window setting"
 * (https://docs.aws.amazon.com/waf/latest/developerguide/waf-rule-statement-type-rate-based-high-level-settings.html),
 * and rate limits an address while that count is over the limit
 * (https://docs.aws.amazon.com/waf/latest/developerguide/waf-rule-statement-type-rate-based-request-limiting.html).
 * So a client that stops at its first 429 stays blocked until enough of its requests have left the window: at
 * once if they were spread over it, a whole window (300 s) if they came in one burst just before. After that WAF may
 * take a while to notice that the rate fell, "usually below 30 seconds"
 * (https://docs.aws.amazon.com/waf/latest/developerguide/waf-rule-statement-type-rate-based-caveats.html). The former
 * 60 s sent most blocked clients back while they were still over the limit; 330 s is when a client that waited is
 * let through again, whatever the shape of its burst.
 */
export const EDGE_RETRY_AFTER_SECONDS = EDGE_WINDOW_SECONDS + 30;

/**
 * IPv6 at the edge. A rate-based rule that aggregates on the IP counts each address on its own
 * (https://docs.aws.amazon.com/waf/latest/APIReference/API_RateBasedStatement.html), and WAF has no aggregation key
 * for an IPv6 prefix (its keys: IP, forwarded IP, ASN, header, cookie, query, path, method, label, JA3/JA4;
 * https://docs.aws.amazon.com/waf/latest/developerguide/waf-rule-statement-type-rate-based-aggregation-options.html).
 * One client holds at least a /64, 2^64 addresses, and would multiply every per-address limit by rotating through
 * them; an ASN key would instead put every customer of a cloud or an ISP in one bucket. So the distribution serves
 * IPv4 only (CONTRACT §21): CloudFront answers AAAA queries for it with no address (`IsIPV6Enabled` false,
 * https://docs.aws.amazon.com/cloudfront/latest/APIReference/API_DistributionConfig.html). That setting only
 * changes CloudFront's DNS answers; that an IPv6 connection to an edge address, made without DNS, is refused is
 * documented nowhere, so the web ACL refuses IPv6 sources as well (CONTRACT §22: no guarantee rests on undocumented
 * behaviour). An IP set holds any CIDR range but /0
 * (https://docs.aws.amazon.com/waf/latest/developerguide/waf-rule-statement-type-ipset-match.html): the two halves
 * of the IPv6 space are all of it.
 */
export const ALL_IPV6 = ['::/1', '8000::/1'] as const;

/** What an IPv6 source gets: the contract's FORBIDDEN problem fields, saying why. */
export const EDGE_IPV6_BODY = JSON.stringify({
  type: 'https://wp-crm.dev/problems/forbidden',
  title: 'Forbidden',
  status: 403,
  detail: 'this API is served over IPv4 only; connect over IPv4',
  code: 'FORBIDDEN',
});

/**
 * The characters AWS WAF takes in a web ACL's or an IP set's description: letters, digits, white space and
 * `+=:#@/-,.` — no quotes, parentheses, underscores or `§` (the `EntityDescription` pattern of
 * https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-wafv2-webacl.html, at most 256
 * characters). CloudFormation refuses anything else at deploy time; wafDescription() refuses it at synth.
 */
const WAF_DESCRIPTION = /^[a-zA-Z0-9=:#@/\-,.][a-zA-Z0-9+=:#@/\-,.\s]+[a-zA-Z0-9+=:#@/\-,.]$/;

export function wafDescription(text: string): string {
  if (text.length > 256 || !WAF_DESCRIPTION.test(text)) {
    throw new Error(`AWS WAF refuses this description (letters, digits, spaces and +=:#@/-,. only): ${text}`);
  }
  return text;
}

/**
 * What the WAF log and the console's sampled requests must not hold: the `Authorization` header (bearer tokens,
 * and a token request's client credentials when they come as Basic) and Meta's `hub.verify_token` query argument
 * (the handshake's shared secret). Request bodies, where `POST /token` may carry a client secret, are not in WAF's
 * log records at all (https://docs.aws.amazon.com/waf/latest/developerguide/logging-fields.html lists the query
 * string, the headers and the path, and no body).
 */
export const EDGE_SECRET_HEADERS = ['authorization'] as const;
export const EDGE_SECRET_QUERY_ARGUMENTS = ['hub.verify_token'] as const;

/**
 * Days before an ACM certificate of the edge expires at which its alarm fires. ACM never renews a certificate it
 * imported (https://docs.aws.amazon.com/acm/latest/userguide/acm-renewal.html), and when CloudFront's client
 * certificate expires every request to the origin fails its TLS handshake: the API is down. 30 days leave a month
 * to issue a new one from the CA and re-import it over the same ARN, through holidays and a CA's approval, and sit
 * inside the 45 days from which ACM itself starts emitting expiry events
 * (https://docs.aws.amazon.com/acm/latest/APIReference/API_ExpiryEventsConfiguration.html). A certificate ACM issued
 * renews itself before then, so the alarm firing for one means its renewal is stuck (its DNS validation record gone).
 */
export const CERTIFICATE_EXPIRY_ALARM_DAYS = 30;
