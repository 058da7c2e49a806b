import { api, call, path } from '../api.ts';
import { eventCatalog } from '../catalog.ts';
import { setQuery, useRoute } from '../router.tsx';
import { Code, Empty, ErrorNotice, Field, Loading, PageTitle, Section, Time, useLoad, useOrg } from '../ui.tsx';

/** The feed is oldest first: the page walks it (at most this many pages of 100) and shows the newest first. */
const MAX_PAGES = 20;
const SHOWN = 200;

export function EventsPage() {
  const orgId = useOrg();
  const { query } = useRoute();
  const type = query.get('type') ?? '';
  const catalog = useLoad(eventCatalog, []);
  const feed = useLoad(async () => {
    const events = [];
    let iterator: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await call(
        api.GET('/api/wp-crm/events/{orgId}', {
          params: {
            ...path(orgId),
            query: { limit: 100, ...(type ? { types: type } : {}), ...(iterator ? { iterator } : {}) },
          },
        }),
      );
      events.push(...result.events);
      if (events.length > SHOWN) events.splice(0, events.length - SHOWN);
      iterator = result.iterator;
      if (result.done) break;
    }
    return events.reverse();
  }, [orgId, type]);
  return (
    <>
      <PageTitle>Events</PageTitle>
      <Section
        title="The events feed"
        actions={
          <>
            <Field label="Event type">
              {(id) => (
                <select id={id} value={type} onChange={(event) => setQuery('type', event.currentTarget.value)}>
                  <option value="">Any</option>
                  {(catalog.value ?? []).map((entry) => (
                    <option key={entry.type}>{entry.type}</option>
                  ))}
                </select>
              )}
            </Field>
            <button type="button" onClick={() => feed.reload()}>
              Refresh
            </button>
          </>
        }
      >
        {feed.loading ? <Loading what="events" /> : null}
        <ErrorNotice error={feed.error} />
        {feed.value?.length === 0 ? <Empty>No events{type ? ` of type ${type}` : ''}.</Empty> : null}
        {feed.value?.map((event) => (
          <details key={event.eventId} class="event">
            <summary>
              <span class="mono">{event.type}</span> <Time value={event.timestamp} />{' '}
              <span class="muted mono">{event.eventId}</span>
            </summary>
            <Code>{JSON.stringify(event.data, null, 2)}</Code>
          </details>
        ))}
      </Section>
    </>
  );
}
