import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { isForbiddenAddress, URL_REFUSALS, WebhookUrlNotAllowedError } from '#shared/domain/webhooks/ssrf-policy';

/** `dns.lookup` called with `all: true`; injectable so tests can play a rebinding DNS server. */
export type LookupAll = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** The `lookup` option of `http.request`/`net.connect`: asked with or without `all`, depending on the family logic. */
export type ConnectLookup = (
  hostname: string,
  options: LookupOptions,
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

export const systemLookup: LookupAll = dnsLookup;

/**
 * Resolves `hostname` exactly once and returns every address, after refusing the lot if any one is forbidden
 * (a name with one private address among public ones is still a way in). An IP literal is its own answer.
 * Throws WebhookUrlNotAllowedError for a forbidden address, and the resolver's own error (ENOTFOUND, …) otherwise.
 */
export async function resolveTarget(
  hostname: string,
  options: { allowPrivate: boolean; lookup: LookupAll },
): Promise<LookupAddress[]> {
  const family = isIP(hostname);
  const addresses =
    family !== 0
      ? [{ address: hostname, family }]
      : await new Promise<LookupAddress[]>((resolve, reject) =>
          options.lookup(hostname, { all: true }, (error, found) => (error ? reject(error) : resolve(found))),
        );
  if (addresses.length === 0) throw Object.assign(new Error(URL_REFUSALS.unresolvable), { code: 'ENOTFOUND' });
  if (!options.allowPrivate && addresses.some(({ address }) => isForbiddenAddress(address))) {
    throw new WebhookUrlNotAllowedError(URL_REFUSALS.address);
  }
  return addresses;
}

/**
 * A connect-time lookup that answers only with the addresses already checked, whatever name it is asked about.
 * This is the DNS pinning: the socket can reach nothing else, while the Host header and TLS SNI keep the name.
 */
export function pinnedLookup(addresses: readonly LookupAddress[]): ConnectLookup {
  return (_hostname, options, callback) => {
    const usable = addresses.filter(({ family }) => !options.family || family === options.family);
    const [first] = usable;
    if (!first) {
      callback(Object.assign(new Error(URL_REFUSALS.unresolvable), { code: 'ENOTFOUND' }), []);
    } else if (options.all) {
      callback(null, usable);
    } else {
      callback(null, first.address, first.family);
    }
  };
}
