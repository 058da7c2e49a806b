import { api, call, path } from '../api.ts';
import { DayChart } from '../chart.tsx';
import { Link } from '../router.tsx';
import { Badge, Empty, ErrorNotice, Loading, PageTitle, Section, Table, Time, useLoad, useOrg } from '../ui.tsx';

const GROUP_STATUSES = ['active', 'suspended', 'deleted'] as const;
const WEEK_MS = 7 * 24 * 3_600_000;

export function OverviewPage() {
  const orgId = useOrg();
  const overview = useLoad(
    () => call(api.GET('/api/wp-crm/console-overview/{orgId}', { params: path(orgId) })),
    [orgId],
    { everyMs: 30_000 },
  );
  return (
    <>
      <PageTitle>Overview</PageTitle>
      <Section title="Last 24 hours">
        {overview.loading && !overview.value ? <Loading what="the last 24 hours" /> : null}
        <ErrorNotice error={overview.error} />
        {overview.value ? (
          <>
            <DayChart hours={overview.value.hours} />
            {overview.value.complete ? null : (
              <p class="hint">A busy day: the figures count the first 10,000 deliveries and 20,000 events read.</p>
            )}
          </>
        ) : null}
      </Section>
      <div class="grid">
        <Channels orgId={orgId} />
        <GroupsByStatus orgId={orgId} />
        <RecentReports orgId={orgId} />
        <FailingEndpoints orgId={orgId} />
      </div>
      <Section title="Latest events" actions={<Link to="/events">All events</Link>}>
        {overview.value ? (
          overview.value.latestEvents.length === 0 ? (
            <Empty>No events yet.</Empty>
          ) : (
            <Table label="Latest events" head={['Type', 'When', 'Event id']}>
              {overview.value.latestEvents.map((event) => (
                <tr key={event.eventId}>
                  <td>{event.type}</td>
                  <td>
                    <Time value={event.timestamp} />
                  </td>
                  <td class="mono">{event.eventId}</td>
                </tr>
              ))}
            </Table>
          )
        ) : null}
      </Section>
    </>
  );
}

function Channels({ orgId }: { orgId: string }) {
  const channels = useLoad(() => call(api.GET('/api/wp-crm/channels/{orgId}', { params: path(orgId) })), [orgId]);
  return (
    <Section title="Channels">
      {channels.loading ? <Loading what="channels" /> : null}
      <ErrorNotice error={channels.error} />
      {channels.value ? (
        <ul class="plain">
          {channels.value.channels.map((channel) => (
            <li key={channel.channelId}>
              <strong>{channel.name}</strong>
              <span class="muted">
                {' '}
                {channel.type} · {channel.phoneNumber}
              </span>
              {channel.groupsEligible ? <Badge value="groups" /> : null}
            </li>
          ))}
        </ul>
      ) : null}
    </Section>
  );
}

function GroupsByStatus({ orgId }: { orgId: string }) {
  const counts = useLoad(
    () =>
      Promise.all(
        GROUP_STATUSES.map(async (groupStatus) => {
          const page = await call(
            api.GET('/api/wp-crm/groups/{orgId}', { params: { ...path(orgId), query: { groupStatus, limit: 100 } } }),
          );
          return { groupStatus, count: `${page.groups.length}${page.nextCursor ? '+' : ''}` };
        }),
      ),
    [orgId],
  );
  return (
    <Section title="Groups by status" actions={<Link to="/groups">All groups</Link>}>
      {counts.loading ? <Loading what="groups" /> : null}
      <ErrorNotice error={counts.error} />
      {counts.value ? (
        <dl class="stats">
          {counts.value.map(({ groupStatus, count }) => (
            <div key={groupStatus}>
              <dt>
                <Link to={`/groups?status=${groupStatus}`}>{groupStatus}</Link>
              </dt>
              <dd>{count}</dd>
            </div>
          ))}
        </dl>
      ) : null}
    </Section>
  );
}

function RecentReports({ orgId }: { orgId: string }) {
  const reports = useLoad(async () => {
    const page = await call(
      api.GET('/api/wp-crm/reports/{organisationId}', {
        params: { path: { organisationId: orgId }, query: { limit: 100 } },
      }),
    );
    const since = new Date(Date.now() - WEEK_MS).toISOString();
    return page.reports.filter((report) => report.requestedAt >= since);
  }, [orgId]);
  return (
    <Section title="Reports of the last 7 days" actions={<Link to="/reports">All reports</Link>}>
      {reports.loading ? <Loading what="reports" /> : null}
      <ErrorNotice error={reports.error} />
      {reports.value?.length === 0 ? <Empty>No reports this week.</Empty> : null}
      {reports.value?.length ? (
        <ul class="plain">
          {reports.value.slice(0, 8).map((report) => (
            <li key={report.reportId}>
              {report.reportType} <Badge value={report.status} /> <Time value={report.requestedAt} />
            </li>
          ))}
        </ul>
      ) : null}
    </Section>
  );
}

function FailingEndpoints({ orgId }: { orgId: string }) {
  const failing = useLoad(async () => {
    const { webhooks } = await call(
      api.GET('/api/wp-crm/webhooks/{orgId}', { params: { ...path(orgId), query: { limit: 100 } } }),
    );
    const checked = await Promise.all(
      webhooks.map(async (webhook) => {
        if (webhook.status === 'disabled') return { webhook, why: `disabled (${webhook.disabledReason ?? 'by hand'})` };
        const { deliveries } = await call(
          api.GET('/api/wp-crm/webhooks/{orgId}/{webhookId}/deliveries', {
            params: { path: { orgId, webhookId: webhook.webhookId }, query: { limit: 5 } },
          }),
        );
        const latest = deliveries[0];
        return latest && (latest.status === 'failed' || latest.status === 'retrying')
          ? { webhook, why: `last delivery ${latest.status}` }
          : undefined;
      }),
    );
    return checked.filter((entry) => entry !== undefined);
  }, [orgId]);
  return (
    <Section title="Failing endpoints" actions={<Link to="/webhooks">All endpoints</Link>}>
      {failing.loading ? <Loading what="endpoints" /> : null}
      <ErrorNotice error={failing.error} />
      {failing.value?.length === 0 ? <Empty>Every endpoint is delivering.</Empty> : null}
      {failing.value?.length ? (
        <ul class="plain">
          {failing.value.map(({ webhook, why }) => (
            <li key={webhook.webhookId}>
              <Link to={`/webhooks/${webhook.webhookId}`} class="mono">
                {webhook.url}
              </Link>{' '}
              <span class="muted">{why}</span>
            </li>
          ))}
        </ul>
      ) : null}
    </Section>
  );
}
