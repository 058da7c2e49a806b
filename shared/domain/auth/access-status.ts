import type { ConsoleSession } from '#shared/domain/console/model';
import type { ClientCredential, OrgStatus } from '#shared/domain/orgs/model';
import { OrgSuspendedError, UnauthorizedError } from '#shared/errors';
import type { Principal } from './roles.ts';
import { secretFingerprint } from './secret-fingerprint.ts';

/** Reads what decides whether a valid token still grants access (CONTRACT §17). */
export interface AccessStatusStore {
  /** Absent: active (or an organisation that no longer exists; its credentials are gone then). */
  getOrgStatus(orgId: string): Promise<OrgStatus | undefined>;
  getCredential(clientId: string): Promise<ClientCredential | undefined>;
  /** A console session (CONTRACT §24); a store without sessions refuses every session's token. */
  getConsoleSession?(sessionId: string): Promise<ConsoleSession | undefined>;
}

const MAX_ENTRIES = 5_000;

/**
 * The statuses of organisations and credentials, each reused for `ttlMs` (at most a minute, CONTRACT §17: a
 * suspension or revocation reaches warm functions within it). A failed read is never kept.
 */
export class AccessStatusCache {
  readonly #orgs = new Map<string, { value: OrgStatus | undefined; untilMs: number }>();
  readonly #credentials = new Map<string, { value: ClientCredential | undefined; untilMs: number }>();
  readonly #sessions = new Map<string, { value: ConsoleSession | undefined; untilMs: number }>();

  constructor(
    private readonly store: AccessStatusStore,
    private readonly ttlMs: number,
    private readonly nowMs: () => number = Date.now,
  ) {}

  orgStatus(orgId: string): Promise<OrgStatus | undefined> {
    return this.#cached(this.#orgs, orgId, () => this.store.getOrgStatus(orgId));
  }

  credential(clientId: string): Promise<ClientCredential | undefined> {
    return this.#cached(this.#credentials, clientId, () => this.store.getCredential(clientId));
  }

  consoleSession(sessionId: string): Promise<ConsoleSession | undefined> {
    const read = this.store.getConsoleSession?.bind(this.store);
    return this.#cached(this.#sessions, sessionId, async () => (read ? read(sessionId) : undefined));
  }

  /** True when the organisation's work must wait (suspended, or being deleted). */
  async isSuspended(orgId: string): Promise<boolean> {
    return (await this.orgStatus(orgId)) === 'suspended';
  }

  async #cached<T>(map: Map<string, { value: T; untilMs: number }>, id: string, read: () => Promise<T>): Promise<T> {
    const now = this.nowMs();
    const hit = map.get(id);
    if (hit && now < hit.untilMs) return hit.value;
    const value = await read();
    if (map.size >= MAX_ENTRIES) map.clear();
    if (this.ttlMs > 0) map.set(id, { value, untilMs: now + this.ttlMs });
    return value;
  }
}

/**
 * A verified token grants access only while its credential exists, is not revoked and belongs to the token's
 * organisation (else 401 UNAUTHORIZED: a deleted organisation's tokens too), was issued with a secret the credential
 * still accepts (after `credential rotate`, the previous secret's tokens only until the overlap ends), and its
 * organisation is not suspended (403 ORG_SUSPENDED). A console session's token also needs its session: not signed
 * out, not past its end, of the same organisation and credential (CONTRACT §24).
 */
export async function checkAccess(cache: AccessStatusCache, principal: Principal, now = new Date()): Promise<void> {
  const [credential, status, session] = await Promise.all([
    cache.credential(principal.clientId),
    cache.orgStatus(principal.orgId),
    principal.sessionId ? cache.consoleSession(principal.sessionId) : undefined,
  ]);
  if (principal.sessionId && !sessionGrants(session, principal, now)) {
    throw new UnauthorizedError('the console session has ended');
  }
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
