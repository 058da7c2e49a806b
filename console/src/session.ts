import { createWpCrmClient } from '@wp-crm/client';
import { signal } from './state.ts';

export interface Session {
  accessToken: string;
  org: string;
  roles: string[];
  access: 'manage' | 'read';
  sessionExpiresAt: string;
}

export type SignInState =
  | { kind: 'loading' }
  | { kind: 'signed-in'; session: Session }
  | { kind: 'refused'; reason: 'used' | 'expired' | 'unknown' | 'signed-out' };

/** The session, in memory only: never localStorage, never a URL (CONTRACT §24). */
export const signIn = signal<SignInState>({ kind: 'loading' });

let refreshTimer: ReturnType<typeof setTimeout> | undefined;

export const currentToken = () => (signIn.value.kind === 'signed-in' ? signIn.value.session.accessToken : '');

export function sessionLost(reason: 'used' | 'expired' | 'unknown' | 'signed-out') {
  clearTimeout(refreshTimer);
  signIn.set({ kind: 'refused', reason });
}

/** The session routes authenticate by their cookie alone: a client without a token. */
const sessions = createWpCrmClient({ baseUrl: location.origin });
type Refusal = { reason?: string } | undefined;

/** Takes a session's token, and asks for the next one a minute before it expires. */
function accept(payload: Session & { expiresIn: number }) {
  const { accessToken, org, roles, access, sessionExpiresAt } = payload;
  signIn.set({ kind: 'signed-in', session: { accessToken, org, roles, access, sessionExpiresAt } });
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => void refresh(), Math.max(5, payload.expiresIn - 60) * 1000);
}

async function refresh() {
  const { data, error } = await sessions.POST('/api/wp-crm/console-sessions/refresh', { body: {} });
  if (data) return accept(data);
  sessionLost((error as Refusal)?.reason === 'expired' ? 'expired' : 'signed-out');
}

/**
 * Opening the console: a link's code in the fragment is spent (and removed from the address bar at once, so it is
 * neither kept in history nor shown); without one, the session cookie is asked for a token.
 */
export async function start() {
  const code = new URLSearchParams(location.hash.slice(1)).get('code');
  if (code === null) return refresh();
  history.replaceState(history.state, '', location.pathname + location.search);
  const { data, error } = await sessions.POST('/api/wp-crm/console-sessions', { body: { code } });
  if (data) return accept(data);
  const reason = (error as Refusal)?.reason;
  sessionLost(reason === 'used' || reason === 'expired' ? reason : 'unknown');
}

export async function signOut() {
  await sessions.POST('/api/wp-crm/console-sessions/sign-out', { body: {} });
  sessionLost('signed-out');
}
