import { useState } from 'preact/hooks';
import { api, call, path } from '../api.ts';
import { eventCatalog } from '../catalog.ts';
import { Link } from '../router.tsx';
import {
  Badge,
  Code,
  CopyButton,
  Empty,
  ErrorNotice,
  Field,
  Loading,
  OpenableForm,
  PageTitle,
  Section,
  Table,
  Time,
  useCanManage,
  useLoad,
  useOrg,
} from '../ui.tsx';

export function WebhooksPage() {
  const orgId = useOrg();
  const canManage = useCanManage();
  const list = useLoad(
    () => call(api.GET('/api/wp-crm/webhooks/{orgId}', { params: { ...path(orgId), query: { limit: 100 } } })),
    [orgId],
  );
  const [secret, setSecret] = useState<{ url: string; secret: string }>();
  return (
    <>
      <PageTitle
        actions={
          canManage ? (
            <AddEndpoint
              orgId={orgId}
              onCreated={(created) => {
                setSecret(created);
                list.reload();
              }}
            />
          ) : null
        }
      >
        Webhooks
      </PageTitle>
      {secret ? <SecretOnce {...secret} onDone={() => setSecret(undefined)} /> : null}
      <Section title="Endpoints">
        {list.loading ? <Loading what="endpoints" /> : null}
        <ErrorNotice error={list.error} />
        {list.value?.webhooks.length === 0 ? <Empty>No endpoints yet.</Empty> : null}
        {list.value?.webhooks.length ? (
          <Table label="Endpoints" head={['Endpoint URL', 'Events', 'Status', 'Created']}>
            {list.value.webhooks.map((webhook) => (
              <tr key={webhook.webhookId}>
                <td>
                  <Link to={`/webhooks/${webhook.webhookId}`} class="mono break">
                    {webhook.url}
                  </Link>
                  {webhook.description ? <div class="muted">{webhook.description}</div> : null}
                </td>
                <td>{webhook.events.join(', ')}</td>
                <td>
                  <Badge value={webhook.status} />
                  {webhook.disabledReason ? <span class="muted"> {webhook.disabledReason}</span> : null}
                </td>
                <td>
                  <Time value={webhook.createdAt} />
                </td>
              </tr>
            ))}
          </Table>
        ) : null}
      </Section>
      <Catalog />
    </>
  );
}

/** A new signing secret: shown this once, with copy; the service never shows it again. */
export function SecretOnce(props: { url: string; secret: string; onDone: () => void }) {
  return (
    <section class="card notice secret" aria-labelledby="secret-title">
      <h2 id="secret-title">Signing secret</h2>
      <p>
        The secret of <span class="mono break">{props.url}</span>. It is shown only now: keep it where your endpoint
        reads it.
      </p>
      <p class="mono break" data-secret>
        {props.secret}
      </p>
      <div class="row">
        <CopyButton text={props.secret} label="Copy secret" />
        <button type="button" onClick={props.onDone}>
          Done
        </button>
      </div>
    </section>
  );
}

function AddEndpoint(props: { orgId: string; onCreated: (created: { url: string; secret: string }) => void }) {
  const catalog = useLoad(eventCatalog, []);
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  return (
    <OpenableForm
      label="Add endpoint"
      onSubmit={async () => {
        const created = await call(
          api.POST('/api/wp-crm/webhooks/{orgId}', {
            params: path(props.orgId),
            body: {
              url,
              ...(description ? { description } : {}),
              ...(events.length ? { events: events as never } : {}),
            },
          }),
        );
        props.onCreated({ url: created.url, secret: created.secret });
        setUrl('');
        setDescription('');
        setEvents([]);
        return true;
      }}
    >
      {() => (
        <>
          <Field label="Endpoint URL" hint="https:// — where the service POSTs signed events">
            {(id, hint) => (
              <input
                id={id}
                type="url"
                required
                aria-describedby={hint}
                value={url}
                onInput={(event) => setUrl(event.currentTarget.value)}
              />
            )}
          </Field>
          <Field label="Description">
            {(id) => (
              <input
                id={id}
                maxLength={256}
                value={description}
                onInput={(event) => setDescription(event.currentTarget.value)}
              />
            )}
          </Field>
          <fieldset class="field boxes">
            <legend>Event types (none chosen: every type, present and future)</legend>
            {(catalog.value ?? []).map((entry) => (
              <label key={entry.type} class="check">
                <input
                  type="checkbox"
                  checked={events.includes(entry.type)}
                  onChange={(event) =>
                    setEvents((current) =>
                      event.currentTarget.checked
                        ? [...current, entry.type]
                        : current.filter((type) => type !== entry.type),
                    )
                  }
                />{' '}
                {entry.type}
              </label>
            ))}
          </fieldset>
        </>
      )}
    </OpenableForm>
  );
}

function Catalog() {
  const catalog = useLoad(eventCatalog, []);
  return (
    <Section title="Event catalog">
      {catalog.loading ? <Loading what="the event catalog" /> : null}
      <ErrorNotice error={catalog.error} />
      {catalog.value?.map((entry) => (
        <details key={entry.type} class="event">
          <summary>
            <span class="mono">{entry.type}</span> <span class="muted">{entry.description}</span>
          </summary>
          <Code>{JSON.stringify(entry.example, null, 2)}</Code>
        </details>
      ))}
    </Section>
  );
}
