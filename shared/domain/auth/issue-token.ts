import { signAccessToken } from '#shared/auth/access-token';
import { DECOY_HASH, verifyClientSecret } from '#shared/auth/client-secret';
import type { Config } from '#shared/config/env';
import { InvalidClientError, TooManyAttemptsError } from '#shared/errors';
import type { Clock } from '#shared/ports/clock';
import type { CredentialStore, LoginAttemptStore } from '#shared/ports/identity-store';
import type { KeyStore } from '#shared/ports/key-store';
import type { Role } from './roles.ts';

export const MAX_FAILED_ATTEMPTS = 10;
/** Failures from one source address across any client ids (credential stuffing), in the same window. */
export const MAX_FAILED_ATTEMPTS_PER_ADDRESS = 100;
export const FAILED_ATTEMPT_WINDOW_SECONDS = 15 * 60;

export interface IssueTokenDeps {
  config: Pick<Config, 'jwt'>;
  clock: Clock;
  identity: CredentialStore & LoginAttemptStore;
  keys: KeyStore;
}

export interface IssuedToken {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
  org: string;
  roles: Role[];
}

/**
 * Client-credentials token issue (CONTRACT §2).
 * 1. Refuse with 429 while the client id has more than 10 failures in its 15-minute window, or the caller's address
 *    more than 100 (across client ids).
 * 2. Verify the secret against the stored scrypt hash (against a decoy hash when the client is unknown, so both
 *    cases take the same time and give the same 401).
 * 3. On failure count it and answer INVALID_CLIENT; on success clear the count and sign an access token.
 */
export async function issueToken(
  deps: IssueTokenDeps,
  input: { clientId: string; clientSecret: string; sourceIp?: string },
): Promise<IssuedToken> {
  const now = deps.clock.now();
  const addressKey = input.sourceIp ? `ip:${input.sourceIp}` : undefined;
  const [failures, addressFailures] = await Promise.all([
    deps.identity.failures(input.clientId, now, FAILED_ATTEMPT_WINDOW_SECONDS),
    addressKey ? deps.identity.failures(addressKey, now, FAILED_ATTEMPT_WINDOW_SECONDS) : undefined,
  ]);
  for (const [counted, limit] of [
    [failures, MAX_FAILED_ATTEMPTS],
    [addressFailures, MAX_FAILED_ATTEMPTS_PER_ADDRESS],
  ] as const) {
    if (counted && counted.count >= limit) {
      const reopensAt = counted.windowStartedAt.getTime() + FAILED_ATTEMPT_WINDOW_SECONDS * 1000;
      throw new TooManyAttemptsError((reopensAt - now.getTime()) / 1000);
    }
  }

  const credential = await deps.identity.getCredential(input.clientId);
  const valid = await verifyClientSecret(input.clientSecret, credential?.secretHash ?? DECOY_HASH);
  if (!credential || !valid) {
    await Promise.all([
      deps.identity.recordFailure(input.clientId, now, FAILED_ATTEMPT_WINDOW_SECONDS),
      addressKey ? deps.identity.recordFailure(addressKey, now, FAILED_ATTEMPT_WINDOW_SECONDS) : undefined,
    ]);
    throw new InvalidClientError();
  }

  if (failures.count > 0) await deps.identity.clear(input.clientId);
  const accessToken = await signAccessToken(deps.keys, deps.config.jwt, credential, now);
  return {
    accessToken,
    tokenType: 'Bearer',
    expiresIn: deps.config.jwt.ttlSeconds,
    org: credential.orgId,
    roles: credential.roles,
  };
}
