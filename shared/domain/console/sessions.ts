import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { CONSOLE_SESSION_ID, signAccessToken, type TokenSettings } from '#shared/auth/access-token';
import { AccessStatusCache, type AccessStatusStore, checkAccess } from '#shared/domain/auth/access-status';
import { ADMINS, type Principal, type Role } from '#shared/domain/auth/roles';
import { ConsoleSignInRefusedError } from '#shared/errors';
import type { Clock } from '#shared/ports/clock';
import type { IdGenerator } from '#shared/ports/ids';
import type { KeyStore } from '#shared/ports/key-store';
import type { ConsoleAccess, ConsoleLink, ConsoleSession, ConsoleStore } from './model.ts';

/** A link's code is good for 10 minutes and one use (CONTRACT §24). */
export const LINK_TTL_SECONDS = 600;
/** A console access token lives 10 minutes (never past its session); the page asks for the next one with its cookie. */
export const CONSOLE_TOKEN_SECONDS = 600;
export const DEFAULT_SESSION_SECONDS = 86_400;

/** 32 random bytes as base64url: the secret of a link's code, and of a session cookie. */
const SECRET = /^[A-Za-z0-9_-]{43}$/;
/** An organisation id as a code or a cookie carries it (a lowercase UUID; any id without a dot). */
const ORG_ID = /^[A-Za-z0-9-]{1,64}$/;
const newSecret = () => randomBytes(32).toString('base64url');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * A link's code is `<orgId>.<secret>`: the organisation names the partition its link is in (keys.ts consoleKeys), so
 * the exchange reaches nothing of another organisation, and the erasure finds every link from the organisation's id.
 * Only the SHA-256 of the whole code is stored.
 */
function parseCode(code: string): { orgId: string; codeHash: string } | undefined {
  const [orgId = '', secret = '', ...rest] = code.split('.');
  if (rest.length > 0 || !ORG_ID.test(orgId) || !SECRET.test(secret)) return undefined;
  return { orgId, codeHash: sha256(code) };
}

/** The session cookie's value: `<orgId>.<sessionId>.<secret>` (never logged, never in a URL). */
function parseCookie(cookie: string | undefined): { orgId: string; sessionId: string; secret: string } | undefined {
  const [orgId = '', sessionId = '', secret = '', ...rest] = (cookie ?? '').split('.');
  if (rest.length > 0 || !ORG_ID.test(orgId) || !CONSOLE_SESSION_ID.test(sessionId) || !SECRET.test(secret)) {
    return undefined;
  }
  return { orgId, sessionId, secret };
}

/** What the exchange and the refresh answer: an access token for the page to keep in memory. */
export interface ConsoleToken {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
  org: string;
  roles: Role[];
  access: ConsoleAccess;
  sessionExpiresAt: string;
}

export interface CreateLinkDeps {
  store: ConsoleStore;
  clock: Clock;
}

/**
 * `POST /console-links/{orgId}` and `wpcrm console-link`.
 * 1. The roles: a `manage` session gets the asker's ACCOUNT_OWNER / CRM_ADMIN roles, a `read` session all of its
 *    roles (it may only read anyway): never more than the credential that asked holds.
 * 2. A fresh code, the organisation's id and 256 random bits; only its SHA-256 is stored (under the organisation),
 *    with the asker, the roles and the session's length.
 * 3. The URL: the console's page with the code in its fragment, which browsers never send to a server.
 */
export async function createConsoleLink(
  deps: CreateLinkDeps,
  input: {
    principal: Pick<Principal, 'orgId' | 'clientId' | 'credentialId' | 'roles' | 'secretFingerprint'>;
    access: ConsoleAccess;
    sessionSeconds: number;
    /** The console's address as the caller reached the service, e.g. `https://crm.example.com/api/wp-crm/console/`. */
    consoleUrl: string;
  },
): Promise<{ url: string; expiresAt: string }> {
  const now = deps.clock.now();
  const { principal } = input;
  const roles = input.access === 'manage' ? principal.roles.filter((role) => ADMINS.includes(role)) : principal.roles;
  const code = `${principal.orgId}.${newSecret()}`;
  const link: ConsoleLink = {
    codeHash: sha256(code),
    orgId: principal.orgId,
    clientId: principal.clientId,
    credentialId: principal.credentialId,
    ...(principal.secretFingerprint ? { secretFingerprint: principal.secretFingerprint } : {}),
    roles,
    access: input.access,
    sessionSeconds: input.sessionSeconds,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + LINK_TTL_SECONDS * 1000).toISOString(),
  };
  await deps.store.putLink(link);
  return { url: `${input.consoleUrl}#code=${code}`, expiresAt: link.expiresAt };
}

export interface SessionDeps {
  store: ConsoleStore;
  /** Read fresh at every exchange and refresh (no cache): a revocation or suspension refuses the next one at once. */
  access: AccessStatusStore;
  keys: KeyStore;
  config: { jwt: TokenSettings };
  clock: Clock;
  ids: IdGenerator;
}

/**
 * `POST /console-sessions`: a link's code → a session (its cookie) and a first access token.
 * 1. Spend the code: one conditional write, so a second use (or a concurrent one) is refused as `used`, a late one as
 *    `expired`, a made-up one as `unknown` (401 UNAUTHORIZED with that `reason`).
 * 2. The asking credential must still grant access (not revoked or rotated away, organisation not suspended or gone).
 * 3. Store the session (its secret hashed) for the link's `sessionSeconds`, and sign its first token.
 */
export async function startConsoleSession(
  deps: SessionDeps,
  input: { code: string },
): Promise<{ token: ConsoleToken; cookie: string; sessionSeconds: number }> {
  const now = deps.clock.now();
  const code = parseCode(input.code);
  if (!code) throw new ConsoleSignInRefusedError('unknown');
  const use = await deps.store.useLink(code.orgId, code.codeHash, now);
  if (!use.spent) throw new ConsoleSignInRefusedError(use.reason);
  const { link } = use;
  await checkAccess(new AccessStatusCache(deps.access, 0), principalOf(link), now);
  const secret = newSecret();
  const session: ConsoleSession = {
    sessionId: deps.ids.next('cs'),
    orgId: link.orgId,
    clientId: link.clientId,
    credentialId: link.credentialId,
    ...(link.secretFingerprint ? { secretFingerprint: link.secretFingerprint } : {}),
    roles: link.roles,
    access: link.access,
    secretHash: sha256(secret),
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + link.sessionSeconds * 1000).toISOString(),
  };
  await deps.store.putSession(session);
  return {
    token: await tokenFor(deps, session, now),
    cookie: `${session.orgId}.${session.sessionId}.${secret}`,
    sessionSeconds: link.sessionSeconds,
  };
}

/**
 * `POST /console-sessions/refresh`: the session cookie → a new access token, while the session lasts, was not
 * signed out and its credential still grants access.
 */
export async function refreshConsoleSession(deps: SessionDeps, input: { cookie: string | undefined }) {
  const now = deps.clock.now();
  const session = await sessionOf(deps.store, input.cookie);
  if (!session || session.endedAt) throw new ConsoleSignInRefusedError('signed-out');
  if (now.toISOString() >= session.expiresAt) throw new ConsoleSignInRefusedError('expired');
  await checkAccess(
    new AccessStatusCache(deps.access, 0),
    { ...principalOf(session), sessionId: session.sessionId },
    now,
  );
  return tokenFor(deps, session, now);
}

/**
 * `POST /console-sessions/sign-out`: ends the cookie's session, if any (its tokens are refused from then on, within
 * the token checks' status cache of at most a minute). Always succeeds: signing out twice is signing out.
 */
export async function endConsoleSession(
  deps: Pick<SessionDeps, 'store' | 'clock'>,
  input: { cookie: string | undefined },
): Promise<void> {
  const session = await sessionOf(deps.store, input.cookie);
  if (session && !session.endedAt) await deps.store.endSession(session.orgId, session.sessionId, deps.clock.now());
}

/** The session a cookie value `<orgId>.<sessionId>.<secret>` names, if its secret matches. */
async function sessionOf(store: ConsoleStore, cookie: string | undefined): Promise<ConsoleSession | undefined> {
  const named = parseCookie(cookie);
  if (!named) return undefined;
  const session = await store.getSession(named.orgId, named.sessionId);
  if (!session || session.orgId !== named.orgId) return undefined;
  const expected = Buffer.from(session.secretHash, 'hex');
  const given = Buffer.from(sha256(named.secret), 'hex');
  return expected.length === given.length && timingSafeEqual(expected, given) ? session : undefined;
}

function principalOf(source: ConsoleLink | ConsoleSession): Principal {
  return {
    clientId: source.clientId,
    orgId: source.orgId,
    roles: source.roles,
    tokenId: '',
    credentialId: source.credentialId,
    ...(source.secretFingerprint ? { secretFingerprint: source.secretFingerprint } : {}),
  };
}

async function tokenFor(deps: SessionDeps, session: ConsoleSession, now: Date): Promise<ConsoleToken> {
  const remaining = Math.floor((Date.parse(session.expiresAt) - now.getTime()) / 1000);
  const expiresIn = Math.max(1, Math.min(CONSOLE_TOKEN_SECONDS, remaining, deps.config.jwt.ttlSeconds));
  const accessToken = await signAccessToken(
    deps.keys,
    deps.config.jwt,
    {
      clientId: session.clientId,
      orgId: session.orgId,
      roles: session.roles,
      credentialId: session.credentialId,
      ...(session.secretFingerprint ? { secretFingerprint: session.secretFingerprint } : {}),
      session: { sessionId: session.sessionId, access: session.access },
    },
    now,
    expiresIn,
  );
  return {
    accessToken,
    tokenType: 'Bearer',
    expiresIn,
    org: session.orgId,
    roles: session.roles,
    access: session.access,
    sessionExpiresAt: session.expiresAt,
  };
}
