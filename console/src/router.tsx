import type { JSX } from 'preact';
import { signal, useSignal } from './state.ts';

/** Every page's address is below this; the History API keeps the place on reload and back/forward. */
export const CONSOLE_BASE = '/api/wp-crm/console';

const here = () => ({ path: location.pathname.slice(CONSOLE_BASE.length) || '/', search: location.search });
const current = signal(here());
addEventListener('popstate', () => current.set(here()));

/** The page's path below the console (`/`, `/groups`, `/groups/cht_…`) and its query. */
export function useRoute() {
  const { path, search } = useSignal(current);
  return { segments: path.split('/').filter(Boolean), query: new URLSearchParams(search) };
}

export function navigate(to: string, options: { replace?: boolean } = {}) {
  const url = `${CONSOLE_BASE}${to === '/' ? '' : to}`;
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  current.set(here());
  if (!options.replace) scrollTo(0, 0);
}

/** Sets one query parameter of the current page (empty removes it), replacing the history entry. */
export function setQuery(name: string, value: string) {
  const query = new URLSearchParams(location.search);
  if (value) query.set(name, value);
  else query.delete(name);
  const search = query.toString();
  navigate(`${here().path}${search ? `?${search}` : ''}`, { replace: true });
}

/** A link inside the console: a real `<a href>` (open in a new tab works), followed without a reload. */
type LinkProps = Pick<JSX.IntrinsicElements['a'], 'class' | 'children' | 'aria-current' | 'title'> & { to: string };

export function Link(props: LinkProps) {
  const { to, ...rest } = props;
  return (
    <a
      {...rest}
      href={`${CONSOLE_BASE}${to === '/' ? '' : to}`}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(to);
      }}
    />
  );
}
