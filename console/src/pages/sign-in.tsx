import { useEffect, useRef } from 'preact/hooks';

const WORDS = {
  used: 'This sign-in link was already used. Each link works once.',
  expired: 'This sign-in link has expired (links work for 10 minutes), or your session has ended.',
  unknown: 'This sign-in link is not valid.',
  'signed-out': 'You are signed out.',
} as const;

/** No session: why, and how to get in again (a new link from an admin, `wpcrm console-link`, or the API). */
export function SignInPage({ reason }: { reason: keyof typeof WORDS }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [reason]);
  return (
    <main id="main" class="sign-in">
      <div class="card">
        <h1 tabIndex={-1} ref={heading}>
          Sign in to the wp-crm console
        </h1>
        <p role="status">{WORDS[reason]}</p>
        <p>
          The console opens with a one-time sign-in link. Ask an administrator of your organisation for a new one (they
          create it with <code>POST /api/wp-crm/console-links/&lt;orgId&gt;</code> or <code>wpcrm console-link</code>).
        </p>
      </div>
    </main>
  );
}
