import type { ConsoleSession } from '#shared/domain/console/model';
import type { ClientCredential, Organisation, OrgStatusCopy, OrgWorkStatus } from '#shared/domain/orgs/model';
import { OrgGoneError, OrgSuspendedError, UnauthorizedError } from '#shared/errors';
import type { Principal } from './roles.ts';
import { secretFingerprint } from './secret-fingerprint.ts';

/** Reads what decides whether a valid token still grants access, and whether a worker may work (CONTRACT §17). */
export interface AccessStatusStore {
  /**
   * The organisation's status copy, read strongly consistent. Absent: an organisation created before status copies
   * existed, one whose erasure finished, or none at all.
   */
  getOrgStatus(orgId: string): Promise<OrgStatusCopy | undefined>;
  /** `consistent`: as stored now (a strongly consistent read), not as a replica may still have it. */
  getCredential(clientId: string, options?: { consistent?: boolean }): Promise<ClientCredential | undefined>;
  /**
   * The organisation item's status and deletion mark (strongly consistent), for an organisation without a status copy.
   * Only workers ask: a token verifier may read no organisation's partition (keys.ts LEADING_KEY_PATTERNS).
   */
  getOrgRecord(orgId: string): Promise<Pick<Organisation, 'status' | 'deletingAt'> | undefined>;
  /**
   * A console session of the organisation (CONTRACT §24), read strongly consistent; a store without sessions refuses
   * every session's token.
   */
  getConsoleSession?(orgId: string, sessionId: string): Promise<ConsoleSession | undefined>;
}

const MAX_ENTRIES = 5_000;

/**
 * What a token check or a worker reads to decide (CONTRACT §17):
 * - a credential, reused for `ttlMs` (at most a minute: a revocation reaches warm functions within it; a failed read
 *   is never kept);
 * - the organisation's status copy, never reused: read strongly consistent at every check. `org delete` must refuse
 *   the organisation's tokens and work from its first step "whatever any cache holds", and a warm Lambda container
 *   cannot be told to drop a cache. The only sound alternative, waiting out every container's cache before each
 *   erasure (and every suspension), still serves the organisation while it waits. One GetItem of a small item
 *   (1 RCU, run beside the credential's read) per request or job is the price; the credential stays cached.
 */
export class AccessStatusCache {
  readonly #credentials = new Map<string, { value: ClientCredential | undefined; untilMs: number }>();

  constructor(
    private readonly store: AccessStatusStore,
    private readonly ttlMs: number,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** The status copy as stored now (never cached, see above). */
  orgStatus(orgId: string): Promise<OrgStatusCopy | undefined> {
    return this.store.getOrgStatus(orgId);
  }

  credential(clientId: string): Promise<ClientCredential | undefined> {
    const now = this.nowMs();
    const hit = this.#credentials.get(clientId);
    if (hit && now < hit.untilMs) return Promise.resolve(hit.value);
    return this.store.getCredential(clientId).then((value) => {
      if (this.#credentials.size >= MAX_ENTRIES) this.#credentials.clear();
      if (this.ttlMs > 0) this.#credentials.set(clientId, { value, untilMs: now + this.ttlMs });
      return value;
    });
  }

  /** A console session as stored now: never cached, so that signing out ends every token of the session at once. */
  consoleSession(orgId: string, sessionId: string): Promise<ConsoleSession | undefined> {
    return this.store.getConsoleSession ? this.store.getConsoleSession(orgId, sessionId) : Promise.resolve(undefined);
  }

  /** The credential as stored now, bypassing (and refreshing) the cache. */
  async currentCredential(clientId: string): Promise<ClientCredential | undefined> {
    const value = await this.store.getCredential(clientId, { consistent: true });
    if (this.ttlMs > 0) this.#credentials.set(clientId, { value, untilMs: this.nowMs() + this.ttlMs });
    return value;
  }

  /**
   * Whether a worker may work for the organisation now: `gone` from the first step of its erasure on, and once it no
   * longer exists. An organisation without a status copy (created before copies existed) is what its own item says;
   * without that item it is gone — a missing status is never "active" by itself, or queued work would bring an
   * erased organisation back.
   */
  async workStatus(orgId: string): Promise<OrgWorkStatus> {
    const status = await this.store.getOrgStatus(orgId);
    if (status === 'deleting') return 'gone';
    if (status !== undefined) return status;
    const org = await this.store.getOrgRecord(orgId);
    if (!org || org.deletingAt) return 'gone';
    return org.status ?? 'active';
  }
}

/**
/**
 * A verified token grants access only while its organisation is not being erased nor gone (else 401, OrgGoneError),
 * its credential exists, is not revoked and belongs to the token's organisation (else 401 UNAUTHORIZED), was issued
 * with a secret the credential still accepts (after `credential rotate`, the previous secret's tokens only until the
 * overlap ends), and its organisation is not suspended (403 ORG_SUSPENDED). A console session's token also needs its
 * session: not signed out, not past its end, of the same organisation and credential (CONTRACT §24).
 */
export async function checkAccess(cache: AccessStatusCache, principal: Principal, now = new Date()): Promise<void> {
  const [cached, status, session] = await Promise.all([
    cache.credential(principal.clientId),
    cache.orgStatus(principal.orgId),
    principal.sessionId ? cache.consoleSession(principal.orgId, principal.sessionId) : undefined,
  ]);
  if (status === 'deleting') throw new OrgGoneError();
  if (principal.sessionId && !sessionGrants(session, principal, now)) {
    throw new UnauthorizedError('the console session has ended');
  }
  // No status copy: an organisation created before copies existed, or one whose erasure finished (it erases the
  // credentials before the copy). The credential as stored now, not as cached, tells the two apart.
  const credential = status === undefined ? await cache.currentCredential(principal.clientId) : cached;
  if (!credential || credential.revokedAt || credential.orgId !== principal.orgId) {
    throw new UnauthorizedError('the token was issued to a credential that is no longer valid');
  }
  if (!issuedWithAcceptedSecret(credential, principal.secretFingerprint, now)) {
    throw new UnauthorizedError('the token was issued with a client secret that has been rotated');
  }
  if (status === 'suspended') throw new OrgSuspendedError();
}

/**
 * The current secret's tokens always; the previous secret's until `previousSecretExpiresAt`. A token without a
 * fingerprint (issued before tokens carried one) counts as the previous secret's once the credential was rotated.
 */
function issuedWithAcceptedSecret(credential: ClientCredential, fingerprint: string | undefined, now: Date): boolean {
  if (fingerprint !== undefined && fingerprint === secretFingerprint(credential.secretHash)) return true;
  if (!credential.rotatedAt) return fingerprint === undefined;
  const overlapOpen =
    credential.previousSecretExpiresAt !== undefined && now.toISOString() < credential.previousSecretExpiresAt;
  if (!overlapOpen) return false;
  return (
    fingerprint === undefined ||
    (credential.previousSecretHash !== undefined && fingerprint === secretFingerprint(credential.previousSecretHash))
  );
}

function sessionGrants(session: ConsoleSession | undefined, principal: Principal, now: Date): boolean {
  return (
    session !== undefined &&
    session.endedAt === undefined &&
    now.toISOString() < session.expiresAt &&
    session.orgId === principal.orgId &&
    session.clientId === principal.clientId
  );
}
