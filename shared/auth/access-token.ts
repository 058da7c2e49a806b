import { randomUUID } from 'node:crypto';
import { importJWK, type JWK, type JWTHeaderParameters, jwtVerify, SignJWT } from 'jose';
import * as v from 'valibot';
import { derivedCredentialId } from '#shared/domain/auth/credential-id';
import { type Principal, ROLES, type Role } from '#shared/domain/auth/roles';
import { SECRET_FINGERPRINT } from '#shared/domain/auth/secret-fingerprint';
import { UnauthorizedError } from '#shared/errors';
import { logger } from '#shared/observability/logger';
import type { KeyStore } from '#shared/ports/key-store';

/** RFC 9068-style access tokens (CONTRACT §2): ES256, `typ: at+jwt`, every claim required, 30 s leeway. */
export const TOKEN_TYPE = 'at+jwt';
const ALGORITHM = 'ES256';
const CLOCK_TOLERANCE_SECONDS = 30;
/** Longer tokens are refused before any parsing (RELIABILITY A-11). */
const MAX_TOKEN_LENGTH = 4096;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** The id of a console session, as its tokens and its cookie carry it (CONTRACT §24). */
export const CONSOLE_SESSION_ID = /^cs_[0-9A-Z]{26}$/;
export const ORG_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const Claims = v.object({
  sub: v.pipe(v.string(), v.minLength(1)),
  org: v.pipe(v.string(), v.regex(ORG_ID)),
  roles: v.array(v.string()),
  jti: v.pipe(v.string(), v.minLength(1)),
  /** The credential's opaque id; tokens issued before it existed lack it (derived from `sub` then). */
  cid: v.optional(v.pipe(v.string(), v.regex(/^crd_[0-9A-Za-z]{1,64}$/))),
  /** Which of the credential's secrets issued it (secret-fingerprint.ts); tokens issued before it existed lack it. */
  sfp: v.optional(v.pipe(v.string(), v.regex(SECRET_FINGERPRINT))),
  /** A console session's id and access (CONTRACT §24); absent on the tokens of `POST /token`. */
  sid: v.optional(v.pipe(v.string(), v.regex(CONSOLE_SESSION_ID))),
  acc: v.optional(v.picklist(['manage', 'read'])),
});

export interface TokenSettings {
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

export async function signAccessToken(
  keys: KeyStore,
  settings: TokenSettings,
  subject: {
    clientId: string;
    orgId: string;
    roles: Role[];
    credentialId?: string;
    secretFingerprint?: string;
    /** A console session's token: its session and access (CONTRACT §24). */
    session?: { sessionId: string; access: 'manage' | 'read' };
  },
  now: Date,
  /** Seconds the token lives, at most `settings.ttlSeconds` (a console token ends no later than its session). */
  ttlSeconds = settings.ttlSeconds,
): Promise<string> {
  const { kid, privateJwk } = await keys.signingKey();
  const key = await importJWK(privateJwk, ALGORITHM);
  const issuedAt = Math.floor(now.getTime() / 1000);
  return new SignJWT({
    org: subject.orgId,
    roles: subject.roles,
    ...(subject.credentialId ? { cid: subject.credentialId } : {}),
    ...(subject.secretFingerprint ? { sfp: subject.secretFingerprint } : {}),
    ...(subject.session ? { sid: subject.session.sessionId, acc: subject.session.access } : {}),
  })
    .setProtectedHeader({ alg: ALGORITHM, typ: TOKEN_TYPE, kid })
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setSubject(subject.clientId)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + Math.min(ttlSeconds, settings.ttlSeconds))
    .setJti(randomUUID())
    .sign(key);
}

/**
 * Verifies a bearer token and returns its principal, or throws UnauthorizedError. Keys are looked up only by `kid`
 * in our own key set: `jku`, `x5u` and embedded `jwk` headers are never followed.
 */
export async function verifyAccessToken(
  keys: KeyStore,
  settings: TokenSettings,
  token: string,
  now: Date,
): Promise<Principal> {
  if (token.length > MAX_TOKEN_LENGTH || !TOKEN_SHAPE.test(token))
    throw new UnauthorizedError('the token is malformed');
  try {
    const { payload } = await jwtVerify(token, (header) => resolveKey(keys, header), {
      algorithms: [ALGORITHM],
      typ: TOKEN_TYPE,
      issuer: settings.issuer,
      audience: settings.audience,
      requiredClaims: ['iss', 'aud', 'sub', 'org', 'roles', 'iat', 'exp', 'jti'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      maxTokenAge: settings.ttlSeconds,
      currentDate: now,
    });
    const claims = v.parse(Claims, payload);
    const roles = claims.roles.filter((role): role is Role => (ROLES as readonly string[]).includes(role));
    return {
      clientId: claims.sub,
      orgId: claims.org,
      roles,
      tokenId: claims.jti,
      credentialId: claims.cid ?? derivedCredentialId(claims.sub),
      ...(claims.sfp ? { secretFingerprint: claims.sfp } : {}),
      ...(claims.sid ? { sessionId: claims.sid, access: claims.acc ?? 'read' } : {}),
    };
  } catch (error) {
    if (error instanceof UnauthorizedError) throw error;
    throw new UnauthorizedError('the token is not valid');
  }
}

async function resolveKey(keys: KeyStore, header: JWTHeaderParameters) {
  const kid = header.kid;
  if (typeof kid !== 'string' || kid.length === 0 || kid.length > 128) throw new UnauthorizedError();
  let matches = (await keys.verificationKeys()).filter((key) => key.kid === kid);
  if (matches.length === 0) {
    await keys.refresh();
    matches = (await keys.verificationKeys()).filter((key) => key.kid === kid);
  }
  if (matches.length > 1) {
    logger.error('two verification keys share one kid; refusing the token', { kid });
    throw new UnauthorizedError();
  }
  const [jwk] = matches as [JWK | undefined];
  if (!jwk) throw new UnauthorizedError();
  return importedKey(jwk);
}

/**
 * Imported verification keys by their public coordinates: importing a JWK costs as much as checking the signature,
 * and a warm function sees the same few keys on every request. A retired key simply stops being asked for.
 */
const imported = new Map<string, ReturnType<typeof importJWK>>();
const MAX_IMPORTED = 16;

function importedKey(jwk: JWK) {
  const id = `${jwk.kid}:${jwk.crv}:${jwk.x}:${jwk.y}`;
  let key = imported.get(id);
  if (!key) {
    if (imported.size >= MAX_IMPORTED) imported.clear();
    key = importJWK({ ...jwk, alg: ALGORITHM }, ALGORITHM);
    imported.set(id, key);
    key.catch(() => imported.delete(id));
  }
  return key;
}
