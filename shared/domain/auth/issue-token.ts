import { signAccessToken } from '#shared/auth/access-token';
import { DECOY_HASH, verifyClientSecret } from '#shared/auth/client-secret';
import type { Config } from '#shared/config/env';
import type { OrgStatusCopy } from '#shared/domain/orgs/model';
import { InvalidClientError, OrgSuspendedError, TooManyAttemptsError } from '#shared/errors';
import type { Clock } from '#shared/ports/clock';
import type { AttemptCounter, CredentialStore, LoginAttemptStore } from '#shared/ports/identity-store';
import type { KeyStore } from '#shared/ports/key-store';
import { credentialIdOf } from './credential-id.ts';
import type { Role } from './roles.ts';
import { secretFingerprint } from './secret-fingerprint.ts';

/** Failures of one client id from one source address: 10 lock that pair only (CONTRACT §18). */
export const MAX_FAILED_ATTEMPTS = 10;
/** Failures of one client id across addresses: 100 lock the client id (an attacker needs ten addresses). */
export const MAX_FAILED_ATTEMPTS_PER_CLIENT = 100;
/** Failures from one source address across any client ids (credential stuffing), in the same window. */
export const MAX_FAILED_ATTEMPTS_PER_ADDRESS = 100;
export const FAILED_ATTEMPT_WINDOW_SECONDS = 15 * 60;

export interface IssueTokenDeps {
  config: Pick<Config, 'jwt'>;
  clock: Clock;
  identity: CredentialStore & LoginAttemptStore;
  keys: KeyStore;
  /** The organisation's status copy, read afresh (CONTRACT §17); absent in deployments without suspension. */
  orgStatus?: (orgId: string) => Promise<OrgStatusCopy | undefined>;
}

export interface IssuedToken {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
  org: string;
  roles: Role[];
}

/**
 * Client-credentials token issue (CONTRACT §2, §13, §18).
 * 1. Count the attempt, before anything is checked, against the (client id, source address) pair (10 per 15 minutes),
 *    the client id (100) and the source address (100, across client ids), each in its own key space: one conditional
 *    write each, so however many attempts arrive at once, at most that many are ever checked; an attempt one counter
 *    refuses is taken back from the others and answered 429. Wrong secrets from one address thus lock that pair,
 *    not the client: its correct secret from an address without failures still gets a token.
 * 2. Verify the secret against the stored scrypt hash (against a decoy hash when the client is unknown, so both
 *    cases take the same time and give the same 401).
 *    A revoked credential never matches; after a rotation the previous secret matches until its overlap ends.
 * 3. A failure stays counted and answers INVALID_CLIENT; a success takes its attempts back and, unless the
 *    organisation is suspended (403 ORG_SUSPENDED) or being erased (401 INVALID_CLIENT, as if the credential were
 *    already gone), signs an access token.
 * The source address is the connection's (API Gateway's `sourceIp`, shared/http/edge.ts), never `X-Forwarded-For`.
 */
export async function issueToken(
  deps: IssueTokenDeps,
  input: { clientId: string; clientSecret: string; sourceIp: string },
): Promise<IssuedToken> {
  const now = deps.clock.now();
  const counters: [AttemptCounter, number][] = [
    [{ kind: 'pair', id: input.clientId, address: input.sourceIp }, MAX_FAILED_ATTEMPTS],
    [{ kind: 'client', id: input.clientId }, MAX_FAILED_ATTEMPTS_PER_CLIENT],
    [{ kind: 'address', id: input.sourceIp }, MAX_FAILED_ATTEMPTS_PER_ADDRESS],
  ];
  const claimed: { counter: AttemptCounter; windowStartedAt: number }[] = [];
  for (const [counter, limit] of counters) {
    const claim = await deps.identity.claimAttempt(counter, now, FAILED_ATTEMPT_WINDOW_SECONDS, limit);
    if (!claim.allowed) {
      await refund(deps, claimed);
      throw new TooManyAttemptsError(claim.retryAfterSeconds);
    }
    claimed.push({ counter, windowStartedAt: claim.windowStartedAt });
  }

  const stored = await deps.identity.getCredential(input.clientId);
  const credential = stored?.revokedAt ? undefined : stored;
  let valid = await verifyClientSecret(input.clientSecret, credential?.secretHash ?? DECOY_HASH);
  let matched = credential?.secretHash;
  const previousUntil = credential?.previousSecretExpiresAt;
  if (!valid && credential?.previousSecretHash && previousUntil && now.toISOString() < previousUntil) {
    valid = await verifyClientSecret(input.clientSecret, credential.previousSecretHash);
    matched = credential.previousSecretHash;
  }
  if (!credential || !valid || !matched) throw new InvalidClientError();

  await refund(deps, claimed);
  const status = await deps.orgStatus?.(credential.orgId);
  if (status === 'deleting') throw new InvalidClientError();
  if (status === 'suspended') throw new OrgSuspendedError();
  const accessToken = await signAccessToken(
    deps.keys,
    deps.config.jwt,
    { ...credential, credentialId: credentialIdOf(credential), secretFingerprint: secretFingerprint(matched) },
    now,
  );
  return {
    accessToken,
    tokenType: 'Bearer',
    expiresIn: deps.config.jwt.ttlSeconds,
    org: credential.orgId,
    roles: credential.roles,
  };
}

const refund = (deps: IssueTokenDeps, claimed: { counter: AttemptCounter; windowStartedAt: number }[]) =>
  Promise.all(claimed.map(({ counter, windowStartedAt }) => deps.identity.refundAttempt(counter, windowStartedAt)));
