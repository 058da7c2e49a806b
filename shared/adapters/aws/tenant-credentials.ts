import type { AwsCredentialIdentity } from '@smithy/types';
import { DomainError } from '#shared/errors';

/** What STS answers to AssumeRole, as much of it as this module reads. */
export interface AssumedSession {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiration: Date;
}

/** Assumes the tenant-access role for `orgId` with the session tag `org=<orgId>`. */
export type AssumeTenantRole = (orgId: string) => Promise<AssumedSession>;

export interface TenantCredentialsOptions {
  assume: AssumeTenantRole;
  now?: () => number;
  /** Organisations whose sessions a container keeps at once; the least recently used one goes first. */
  maxOrganisations?: number;
  /** A session is renewed once this old, so one container assumes at most once per organisation per period. */
  renewAfterSeconds?: number;
}

/** An organisation's credentials could not be had: retry later, never fall back to broader ones (CONTRACT §25). */
export class TenantAccessUnavailableError extends DomainError {
  constructor(cause: unknown) {
    super('NETWORK_UNAVAILABLE', "the organisation's credentials are unavailable; retry later", {
      status: 503,
      retryAfterSeconds: 5,
      cause,
    });
  }
}

interface Entry {
  session: Promise<AssumedSession>;
  assumedAt: number;
}

/**
 * Each organisation's session of the tenant-access role, per container (CONTRACT §25): assumed on the organisation's
 * first call, shared by every call after it, renewed once 50 minutes old (sessions last an hour), so at most one
 * AssumeRole per organisation per container per 50 minutes. Bounded: past `maxOrganisations` the least recently used
 * is dropped. A failed AssumeRole is not kept: the next call tries again.
 */
export class TenantCredentials {
  readonly #entries = new Map<string, Entry>();
  readonly #now: () => number;
  readonly #max: number;
  readonly #renewAfterMs: number;
  /** AssumeRole calls made by this container (the benchmark's count). */
  assumed = 0;

  constructor(private readonly options: TenantCredentialsOptions) {
    this.#now = options.now ?? Date.now;
    this.#max = options.maxOrganisations ?? 10_000;
    this.#renewAfterMs = (options.renewAfterSeconds ?? 50 * 60) * 1000;
  }

  /** The organisation's credentials, valid for at least `validForSeconds` more. */
  async credentialsFor(orgId: string, validForSeconds = 0): Promise<AwsCredentialIdentity> {
    let entry = this.#entries.get(orgId);
    if (entry && !(await this.#fresh(entry, validForSeconds))) entry = undefined;
    if (!entry) entry = this.#assume(orgId);
    // Most recently used last: Map keeps insertion order.
    this.#entries.delete(orgId);
    this.#entries.set(orgId, entry);
    while (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value as string);
    try {
      const { accessKeyId, secretAccessKey, sessionToken, expiration } = await entry.session;
      return { accessKeyId, secretAccessKey, sessionToken, expiration };
    } catch (error) {
      if (this.#entries.get(orgId) === entry) this.#entries.delete(orgId);
      throw new TenantAccessUnavailableError(error);
    }
  }

  async #fresh(entry: Entry, validForSeconds: number): Promise<boolean> {
    const now = this.#now();
    if (now - entry.assumedAt >= this.#renewAfterMs) return false;
    const session = await entry.session.catch(() => undefined);
    return session !== undefined && session.expiration.getTime() - now > validForSeconds * 1000;
  }

  #assume(orgId: string): Entry {
    this.assumed += 1;
    const session = this.options.assume(orgId);
    // A rejection is read by the caller that awaits it; this keeps an unawaited one from being reported as unhandled.
    session.catch(() => undefined);
    return { session, assumedAt: this.#now() };
  }
}
