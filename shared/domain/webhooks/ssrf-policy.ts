import { BlockList, isIP } from 'node:net';
import { DomainError } from '#shared/errors';

/**
 * Which webhook targets we may call (CONTRACT §7, RELIABILITY J-5). Pure: no DNS here. The sender applies
 * `isForbiddenAddress` to every address a host resolves to, at subscription and again at every send.
 */

/** Refusal reasons shown to the customer: fixed sentences, never a resolved address or a system error. */
export const URL_REFUSALS = {
  invalid: 'the URL is not valid',
  scheme: 'the URL must use https',
  credentials: 'the URL must not contain a user name or password',
  host: 'the URL must name a host',
  port: 'the URL must use port 443 or 8443',
  name: 'the host name is reserved for private use',
  address: 'the host is or resolves to a private or reserved address',
  unresolvable: 'the host name could not be resolved',
} as const;

export type UrlRefusal = (typeof URL_REFUSALS)[keyof typeof URL_REFUSALS];

/** A URL that passed the policy, and the host to resolve and connect to (IPv6 without brackets, no trailing dot). */
export type UrlCheck = { ok: true; url: URL; hostname: string } | { ok: false; reason: UrlRefusal };

/** 422 WEBHOOK_URL_NOT_ALLOWED (CONTRACT §7); `reason` is one of URL_REFUSALS. */
export class WebhookUrlNotAllowedError extends DomainError {
  constructor(readonly reason: UrlRefusal) {
    super('WEBHOOK_URL_NOT_ALLOWED', `the webhook URL is not allowed: ${reason}`, { extensions: { reason } });
  }
}

/** 8443 is the customary alternative TLS port; anything else is more likely an internal service than a webhook. */
const PUBLIC_PORTS = new Set(['', '443', '8443']);
/** Names resolvers may answer locally (RFC 6761 `localhost`, mDNS `.local`, ICANN's private-use `.internal`). */
const PRIVATE_NAME = /(^|\.)(localhost|local|internal)$/;

/**
 * Checks a webhook URL before any DNS. Production (`allowPrivate: false`): `https:` only, port 443 or 8443, no
 * userinfo, a dotted host name that is not private-use, and no forbidden IP literal. `allowPrivate: true` (the
 * local stack and tests) also allows `http:`, any port, any host; it never allows other schemes or userinfo.
 * WHATWG parsing has already turned `0x7f000001`, `2130706433`, `017700000001` and `127.1` into `127.0.0.1`.
 */
export function checkWebhookUrl(input: string, options: { allowPrivate: boolean }): UrlCheck {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return { ok: false, reason: URL_REFUSALS.invalid };
  }
  const schemes = options.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return { ok: false, reason: URL_REFUSALS.scheme };
  if (url.username || url.password) return { ok: false, reason: URL_REFUSALS.credentials };
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  if (!hostname) return { ok: false, reason: URL_REFUSALS.host };
  if (options.allowPrivate) return { ok: true, url, hostname };

  if (!PUBLIC_PORTS.has(url.port)) return { ok: false, reason: URL_REFUSALS.port };
  if (isIP(hostname)) {
    return isForbiddenAddress(hostname) ? { ok: false, reason: URL_REFUSALS.address } : { ok: true, url, hostname };
  }
  // A single-label name goes through the resolver's search domains, i.e. to an internal zone.
  if (!hostname.includes('.') || PRIVATE_NAME.test(hostname)) return { ok: false, reason: URL_REFUSALS.name };
  return { ok: true, url, hostname };
}

const forbiddenV4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // RFC 1918
  ['100.64.0.0', 10], // CGNAT (also Alibaba's metadata 100.100.100.200)
  ['127.0.0.0', 8], // loopback (the Lambda Runtime API lives here)
  ['169.254.0.0', 16], // link-local: EC2 metadata 169.254.169.254, ECS credentials 169.254.170.2
  ['172.16.0.0', 12], // RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments (Oracle metadata 192.0.0.192)
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16], // RFC 1918
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  forbiddenV4.addSubnet(network, prefix, 'ipv4');
}

/**
 * IPv6 is allowed only inside global unicast 2000::/3; that alone excludes ::, ::1, fe80::/10, fc00::/7 (so the
 * EC2 metadata fd00:ec2::254), ff00::/8 and the discard prefix. These are the special ranges inside 2000::/3.
 */
const globalV6 = new BlockList();
globalV6.addSubnet('2000::', 3, 'ipv6');
const forbiddenV6 = new BlockList();
for (const [network, prefix] of [
  ['2001::', 32], // Teredo: tunnels to an IPv4 address we could not check
  ['2001:2::', 48], // benchmarking
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
] as const) {
  forbiddenV6.addSubnet(network, prefix, 'ipv6');
}

/**
 * True when `ip` must never be a webhook target: loopback, unspecified, RFC 1918, CGNAT, link-local, cloud metadata,
 * unique-local, multicast, reserved, documentation and benchmark ranges. IPv6 that embeds an IPv4 address (mapped
 * `::ffff:0:0/96`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) is judged by that address; the deprecated compatible
 * form `::a.b.c.d` lies outside 2000::/3 and is refused outright. Anything that is not an IP address is forbidden.
 */
export function isForbiddenAddress(ip: string): boolean {
  const address = ip.replace(/%.*$/, ''); // a zone id only ever appears on link-local addresses
  const version = isIP(address);
  if (version === 4) return forbiddenV4.check(address, 'ipv4');
  if (version !== 6) return true;
  const embedded = embeddedV4(ipv6Bytes(address));
  if (embedded) return forbiddenV4.check(embedded, 'ipv4');
  return !globalV6.check(address, 'ipv6') || forbiddenV6.check(address, 'ipv6');
}

/** The IPv4 address inside an IPv6 one, for the forms a host or gateway actually delivers to that IPv4 address. */
function embeddedV4(bytes: number[]): string | undefined {
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  const v4 = (at: number) => bytes.slice(at, at + 4).join('.');
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return v4(12); // ::ffff:a.b.c.d
  if (bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12)) return v4(12);
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return v4(2); // 6to4
  return undefined;
}

/** The 16 bytes of a valid IPv6 address (`isIP` already said 6), including a trailing dotted quad. */
function ipv6Bytes(address: string): number[] {
  let text = address;
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const groups = (part: string) => (part ? part.split(':') : []);
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const words = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return words.flatMap((word) => {
    const value = Number.parseInt(word, 16);
    return [value >> 8, value & 0xff];
  });
}
