import { verifyAccessToken } from '#shared/auth/access-token';
import { clock, config } from '#shared/config/core';
import { verificationKeyStore } from '#shared/config/keys';
import type { Principal } from '#shared/domain/auth/roles';
import { UnauthorizedError } from '#shared/errors';

const BEARER = /^Bearer ([^\s,]+)$/;

/** `Authorization: Bearer <access token>` → the token's principal (CONTRACT §2), or 401 UNAUTHORIZED. */
export async function authenticateBearer(header: string | undefined): Promise<Principal> {
  const token = header ? BEARER.exec(header)?.[1] : undefined;
  if (!token) throw new UnauthorizedError();
  return verifyAccessToken(verificationKeyStore(), config().jwt, token, clock().now());
}
