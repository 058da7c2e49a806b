import { decodeJwt } from 'jose';
import { verifyAccessToken } from '#shared/auth/access-token';
import { accessStatus } from '#shared/config/access';
import { clock, config } from '#shared/config/core';
import { verificationKeyStore } from '#shared/config/keys';
import { checkAccess } from '#shared/domain/auth/access-status';
import type { Principal } from '#shared/domain/auth/roles';
import { UnauthorizedError } from '#shared/errors';

/** RFC 9110 §11.1: the scheme name is case-insensitive (`bearer`, `BEARER`); the token itself is not. */
const BEARER = /^Bearer +([^\s,]+)$/i;

/**
 * Tokens this process verified in the last minute, by their exact text. Callers reuse a token for its hour, and
 * checking an ES256 signature costs more than the rest of a request's middleware; a hit still honours the token's
 * expiry. A key retired meanwhile stops being accepted within the minute (warm functions learn of a retirement no
 * sooner: they reload the published keys at most once a minute).
 */
const verified = new Map<string, { principal: Principal; untilMs: number }>();
const VERIFIED_FOR_MS = 60_000;
const MAX_VERIFIED = 1_000;

/**
 * `Authorization: Bearer <access token>` → the token's principal (CONTRACT §2), or 401 UNAUTHORIZED; a token of a
 * revoked credential → 401, of a suspended organisation → 403 ORG_SUSPENDED (CONTRACT §17, through a cache of at
 * most a minute).
 */
export async function authenticateBearer(header: string | undefined): Promise<Principal> {
  const principal = await verifyBearer(header);
  await checkAccess(accessStatus(), principal, clock().now());
  return principal;
}

async function verifyBearer(header: string | undefined): Promise<Principal> {
  const token = header ? BEARER.exec(header)?.[1] : undefined;
  if (!token) throw new UnauthorizedError();
  const nowMs = clock().now().getTime();
  const hit = verified.get(token);
  if (hit && nowMs < hit.untilMs) return hit.principal;
  const settings = config().jwt;
  const principal = await verifyAccessToken(verificationKeyStore(), settings, token, new Date(nowMs));
  const { exp = 0, iat = 0 } = decodeJwt(token);
  if (verified.size >= MAX_VERIFIED) verified.clear();
  verified.set(token, {
    principal,
    untilMs: Math.min(nowMs + VERIFIED_FOR_MS, exp * 1000, (iat + settings.ttlSeconds) * 1000),
  });
  return principal;
}
