import { render } from 'preact';
import './styles.css';
import { EndpointPage } from './pages/endpoint.tsx';
import { EventsPage } from './pages/events.tsx';
import { GroupPage } from './pages/group.tsx';
import { GroupsPage } from './pages/groups.tsx';
import { OverviewPage } from './pages/overview.tsx';
import { ReportsPage } from './pages/reports.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';
import { Link, useRoute } from './router.tsx';
import { signIn, signOut, start } from './session.ts';
import { useSignal } from './state.ts';
import { Loading } from './ui.tsx';

const NAV = [
  { to: '/', label: 'Overview', page: undefined },
  { to: '/groups', label: 'Groups', page: 'groups' },
  { to: '/reports', label: 'Reports', page: 'reports' },
  { to: '/webhooks', label: 'Webhooks', page: 'webhooks' },
  { to: '/events', label: 'Events', page: 'events' },
] as const;

function Page() {
  const { segments } = useRoute();
  const [page, id] = segments;
  if (page === undefined) return <OverviewPage />;
  if (page === 'groups') return id ? <GroupPage chatId={id} /> : <GroupsPage />;
  if (page === 'reports') return <ReportsPage />;
  if (page === 'webhooks') return id ? <EndpointPage webhookId={id} /> : <WebhooksPage />;
  if (page === 'events') return <EventsPage />;
  return <h1>No such page</h1>;
}

function App() {
  const state = useSignal(signIn);
  const { segments } = useRoute();
  if (state.kind === 'loading') return <Loading what="the console" />;
  if (state.kind === 'refused') return <SignInPage reason={state.reason} />;
  const readOnly = state.session.access === 'read';
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <div class="brand">
          <span class="logo" aria-hidden="true">
            wp
          </span>
          <span>wp-crm console</span>
          {readOnly ? <span class="badge badge-read">Read only</span> : null}
        </div>
        <nav aria-label="Console">
          <ul>
            {NAV.map((item) => (
              <li key={item.to}>
                <Link to={item.to} aria-current={segments[0] === item.page ? 'page' : undefined}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="sign-out" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <main id="main">
        <Page />
      </main>
    </>
  );
}

const root = document.getElementById('app')!;
root.textContent = '';
render(<App />, root);
void start();
