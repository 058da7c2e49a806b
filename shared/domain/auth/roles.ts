export const ROLES = ['ACCOUNT_OWNER', 'CRM_ADMIN', 'CRM_BOT', 'CRM_AGENT'] as const;
export type Role = (typeof ROLES)[number];

export const ANY_ROLE: readonly Role[] = ROLES;
export const ADMINS: readonly Role[] = ['ACCOUNT_OWNER', 'CRM_ADMIN'];
export const ADMINS_AND_BOTS: readonly Role[] = ['ACCOUNT_OWNER', 'CRM_ADMIN', 'CRM_BOT'];

/** The caller, as proven by a verified access token. */
export interface Principal {
  clientId: string;
  orgId: string;
  roles: Role[];
  tokenId: string;
  /** The opaque id of the credential the token was issued to (`crd_…`, CONTRACT §18). */
  credentialId: string;
  /** Which of the credential's secrets the token was issued with (absent on tokens issued before it was kept). */
  secretFingerprint?: string;
  /** A console session's token (CONTRACT §24): the session it belongs to, checked at every call. */
  sessionId?: string;
  /** A console session's access: a `read` session's token is refused (403) on every route that is not a GET. */
  access?: 'manage' | 'read';
}
