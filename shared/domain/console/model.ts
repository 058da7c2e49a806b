import type { Role } from '#shared/domain/auth/roles';

/** What a console session may do (CONTRACT §24): `read` sees every page and changes nothing. */
export const CONSOLE_ACCESS = ['manage', 'read'] as const;
export type ConsoleAccess = (typeof CONSOLE_ACCESS)[number];

/**
 * A magic link, stored in its organisation's console partition by the SHA-256 of its code (the code itself,
 * `<orgId>.<secret>`, is only ever in the URL given out).
 */
export interface ConsoleLink {
  codeHash: string;
  orgId: string;
  /** The credential that asked for the link: the session's tokens are its tokens, so its revocation ends them. */
  clientId: string;
  /** That credential's opaque id (`crd_…`): the session's tokens carry it, as the sender of what they send. */
  credentialId: string;
  /** Which of that credential's secrets the asking token was issued with (a rotation's overlap ends the session). */
  secretFingerprint?: string;
  roles: Role[];
  access: ConsoleAccess;
  sessionSeconds: number;
  createdAt: string;
  /** 10 minutes after creation. */
  expiresAt: string;
  /** Set once, by the exchange that spent it. */
  usedAt?: string;
}

/**
 * A signed-in browser. Its cookie carries `<orgId>.<sessionId>.<secret>` (its tokens the organisation and the session
 * id); the store keeps the secret's SHA-256.
 */
export interface ConsoleSession {
  sessionId: string;
  orgId: string;
  clientId: string;
  credentialId: string;
  secretFingerprint?: string;
  roles: Role[];
  access: ConsoleAccess;
  secretHash: string;
  createdAt: string;
  expiresAt: string;
  /** Set by "Sign out". */
  endedAt?: string;
}

/** Why a code or a session is refused: the `reason` of the 401 UNAUTHORIZED problem, and the sign-in page's words. */
export type ConsoleRefusal = 'used' | 'expired' | 'unknown' | 'signed-out';

/** The outcome of spending a link's code: the link when this call spent it, else why not. */
export type LinkUse = { spent: true; link: ConsoleLink } | { spent: false; reason: 'used' | 'expired' | 'unknown' };

/**
 * Where links and sessions live: under their organisation, so that its erasure finds them from its id
 * (shared/adapters/dynamodb/console-store.ts).
 */
export interface ConsoleStore {
  putLink(link: ConsoleLink): Promise<void>;
  /** Marks the link used if it exists, is unused and has not expired, in one conditional write. */
  useLink(orgId: string, codeHash: string, now: Date): Promise<LinkUse>;
  putSession(session: ConsoleSession): Promise<void>;
  getSession(orgId: string, sessionId: string): Promise<ConsoleSession | undefined>;
  /** Sets `endedAt` unless already set; false when there is no such session. */
  endSession(orgId: string, sessionId: string, at: Date): Promise<boolean>;
}
