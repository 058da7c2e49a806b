import { useState } from 'preact/hooks';
import { api, call } from '../api.ts';
import { Link, navigate, setQuery, useRoute } from '../router.tsx';
import {
  ActionButton,
  Badge,
  Code,
  Empty,
  ErrorNotice,
  Field,
  Loading,
  PageTitle,
  Section,
  Table,
  Time,
  useCanManage,
  useLoad,
  useOrg,
} from '../ui.tsx';
import { SecretOnce } from './webhooks.tsx';

const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed'] as const;

export function EndpointPage({ webhookId }: { webhookId: string }) {
  const orgId = useOrg();
  const canManage = useCanManage();
  const target = { params: { path: { orgId, webhookId } } };
  const endpoint = useLoad(async () => {
    // The list holds the endpoint (no route reads one alone); at most 20 per organisation.
    const { webhooks } = await call(
      api.GET('/api/wp-crm/webhooks/{orgId}', { params: { path: { orgId }, query: { limit: 100 } } }),
    );
    return webhooks.find((webhook) => webhook.webhookId === webhookId);
  }, [orgId, webhookId]);
  const [secret, setSecret] = useState<string>();
  const [testType, setTestType] = useState('');
  const [sent, setSent] = useState<string>();
  const value = endpoint.value;
  return (
    <>
      <p class="crumbs">
        <Link to="/webhooks">Webhooks</Link> /
      </p>
      <PageTitle>Endpoint</PageTitle>
      {endpoint.loading ? <Loading what="the endpoint" /> : null}
      <ErrorNotice error={endpoint.error} />
      {endpoint.value === undefined && !endpoint.loading ? <Empty>No such endpoint.</Empty> : null}
      {secret && value ? <SecretOnce url={value.url} secret={secret} onDone={() => setSecret(undefined)} /> : null}
      {value ? (
        <Section title="Settings">
          <dl class="facts">
            <dt>Endpoint URL</dt>
            <dd class="mono break">{value.url}</dd>
            <dt>Description</dt>
            <dd>{value.description || '—'}</dd>
            <dt>Events</dt>
            <dd>{value.events.join(', ')}</dd>
            <dt>Status</dt>
            <dd>
              <Badge value={value.status} />
              {value.disabledReason ? <span class="muted"> {value.disabledReason}</span> : null}
            </dd>
          </dl>
          {canManage ? (
            <div class="row wrap">
              <span class="inline-field">
                <Field label="Test event type">
                  {(id) => (
                    <select id={id} value={testType} onChange={(event) => setTestType(event.currentTarget.value)}>
                      <option value="">First subscribed type</option>
                      {value.events
                        .filter((type) => type !== '*')
                        .map((type) => (
                          <option key={type}>{type}</option>
                        ))}
                    </select>
                  )}
                </Field>
              </span>
              <ActionButton
                onAction={async () => {
                  const queued = await call(
                    api.POST('/api/wp-crm/webhooks/{orgId}/{webhookId}/test', {
                      ...target,
                      body: testType ? { type: testType as never } : {},
                    }),
                  );
                  setSent(`Test event sent: delivery ${queued.deliveryId}`);
                }}
              >
                Send test event
              </ActionButton>
              <ActionButton
                onAction={async () => {
                  const rotated = await call(
                    api.POST('/api/wp-crm/webhooks/{orgId}/{webhookId}/rotate-secret', target),
                  );
                  setSecret(rotated.secret);
                }}
              >
                Rotate secret
              </ActionButton>
              <ActionButton
                onAction={async () => {
                  await call(
                    api.PATCH('/api/wp-crm/webhooks/{orgId}/{webhookId}', {
                      ...target,
                      body: { status: value.status === 'active' ? 'disabled' : 'active' },
                    }),
                  );
                  endpoint.reload();
                }}
              >
                {value.status === 'active' ? 'Disable' : 'Enable'}
              </ActionButton>
              <ActionButton
                class="danger"
                onAction={async () => {
                  if (!confirm(`Delete the endpoint ${value.url}? Its deliveries stop.`)) return;
                  await call(api.DELETE('/api/wp-crm/webhooks/{orgId}/{webhookId}', target));
                  navigate('/webhooks');
                }}
              >
                Delete
              </ActionButton>
            </div>
          ) : null}
          {sent ? (
            <p class="notice" role="status">
              {sent}
            </p>
          ) : null}
        </Section>
      ) : null}
      {value ? <DeliveryLog orgId={orgId} webhookId={webhookId} /> : null}
    </>
  );
}

function DeliveryLog({ orgId, webhookId }: { orgId: string; webhookId: string }) {
  const canManage = useCanManage();
  const { query } = useRoute();
  const status = query.get('status') ?? '';
  const deliveries = useLoad(
    () =>
      call(
        api.GET('/api/wp-crm/webhooks/{orgId}/{webhookId}/deliveries', {
          params: { path: { orgId, webhookId }, query: { limit: 100 } },
        }),
      ),
    [orgId, webhookId],
    { everyMs: 2_000 },
  );
  const shown = (deliveries.value?.deliveries ?? []).filter((delivery) => !status || delivery.status === status);
  return (
    <Section
      title="Delivery log"
      actions={
        <Field label="Delivery status">
          {(id) => (
            <select id={id} value={status} onChange={(event) => setQuery('status', event.currentTarget.value)}>
              <option value="">Any</option>
              {DELIVERY_STATUSES.map((value) => (
                <option key={value}>{value}</option>
              ))}
            </select>
          )}
        </Field>
      }
    >
      {deliveries.loading && !deliveries.value ? <Loading what="deliveries" /> : null}
      <ErrorNotice error={deliveries.error} />
      {deliveries.value && shown.length === 0 ? <Empty>No deliveries{status ? ` ${status}` : ''}.</Empty> : null}
      {shown.length ? (
        <Table label="Deliveries" head={['Type', 'Status', 'When', 'Attempts', 'Last answer', '']}>
          {shown.map((delivery) => (
            <tr key={delivery.deliveryId}>
              <td>{delivery.type}</td>
              <td>
                <Badge value={delivery.status} />
              </td>
              <td>
                <Time value={delivery.createdAt} />
              </td>
              <td>
                <Attempts
                  orgId={orgId}
                  webhookId={webhookId}
                  deliveryId={delivery.deliveryId}
                  count={delivery.attempts}
                />
              </td>
              <td>{delivery.lastStatusCode ?? delivery.lastError ?? '—'}</td>
              <td>
                {canManage && (delivery.status === 'succeeded' || delivery.status === 'failed') ? (
                  <ActionButton
                    aria-label="Replay"
                    onAction={async () => {
                      await call(
                        api.POST('/api/wp-crm/webhooks/{orgId}/{webhookId}/deliveries/{deliveryId}/redeliver', {
                          params: { path: { orgId, webhookId, deliveryId: delivery.deliveryId } },
                        }),
                      );
                      deliveries.reload();
                    }}
                  >
                    Replay
                  </ActionButton>
                ) : null}
              </td>
            </tr>
          ))}
        </Table>
      ) : null}
    </Section>
  );
}

/** A delivery's attempts, read when opened: code, duration, and the first KiB of the answer, as text. */
function Attempts(props: { orgId: string; webhookId: string; deliveryId: string; count: number }) {
  const [open, setOpen] = useState(false);
  return (
    <details onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>
        {props.count} attempt{props.count === 1 ? '' : 's'}
      </summary>
      {open ? <AttemptList {...props} /> : null}
    </details>
  );
}

function AttemptList(props: { orgId: string; webhookId: string; deliveryId: string; count: number }) {
  const { orgId, webhookId, deliveryId } = props;
  // Read again when the log shows a new attempt (a retry, a replay).
  const attempts = useLoad(
    () =>
      call(
        api.GET('/api/wp-crm/webhooks/{orgId}/{webhookId}/deliveries/{deliveryId}/attempts', {
          params: { path: { orgId, webhookId, deliveryId } },
        }),
      ),
    [deliveryId, props.count],
  );
  if (attempts.loading && !attempts.value) return <Loading what="attempts" />;
  if (attempts.error) return <ErrorNotice error={attempts.error} />;
  if (!attempts.value?.attempts.length) return <Empty>Not attempted yet.</Empty>;
  return (
    <ol class="attempts">
      {attempts.value.attempts.map((attempt) => (
        <li key={attempt.attempt}>
          <div>
            #{attempt.attempt} · <Time value={attempt.at} /> · code {attempt.statusCode ?? '—'} · {attempt.durationMs}{' '}
            ms
            {attempt.error ? ` · ${attempt.error}` : ''}
          </div>
          {attempt.responseBody ? <Code>{attempt.responseBody}</Code> : null}
        </li>
      ))}
    </ol>
  );
}
