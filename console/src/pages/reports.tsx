import { useState } from 'preact/hooks';
import { ApiError, api, call, type Schemas } from '../api.ts';
import { reportTypes } from '../catalog.ts';
import { FilterControl, type FilterValues } from '../filters.tsx';
import {
  ActionButton,
  Badge,
  Empty,
  ErrorNotice,
  Field,
  Loading,
  OpenableForm,
  Pager,
  PageTitle,
  Section,
  Table,
  Time,
  useCanManage,
  useLoad,
  useOrg,
} from '../ui.tsx';

type Report = Schemas['ReportView'];
const OPEN = new Set(['PENDING', 'PROCESSING']);
const FORMATS = ['csv', 'xlsx', 'jsonl'] as const;
const COMPRESSIONS = ['none', 'gzip'] as const;
const clock = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });

export function ReportsPage() {
  const orgId = useOrg();
  const canManage = useCanManage();
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const reports = useLoad(
    () =>
      call(
        api.GET('/api/wp-crm/reports/{organisationId}', {
          params: { path: { organisationId: orgId }, query: cursor ? { cursor } : {} },
        }),
      ),
    [orgId, cursor],
    { everyMs: 2_000, keepPolling: (page) => page.reports.some((report) => OPEN.has(report.status)) },
  );
  return (
    <>
      <PageTitle actions={canManage ? <RequestReport orgId={orgId} onRequested={() => reports.reload()} /> : null}>
        Reports
      </PageTitle>
      <Section title="Requested reports">
        {reports.loading && !reports.value ? <Loading what="reports" /> : null}
        <ErrorNotice error={reports.error} />
        {reports.value?.reports.length === 0 ? <Empty>No reports yet.</Empty> : null}
        {reports.value?.reports.length ? (
          <Table label="Reports" head={['Type', 'Status', 'File', 'Requested', 'Rows', '']}>
            {reports.value.reports.map((report) => (
              <ReportRow key={report.reportId} orgId={orgId} report={report} />
            ))}
          </Table>
        ) : null}
        <Pager
          hasPrevious={cursors.length > 0}
          nextCursor={reports.value?.nextCursor}
          onFirst={() => setCursors([])}
          onNext={() => reports.value?.nextCursor && setCursors((list) => [...list, reports.value!.nextCursor!])}
        />
      </Section>
      <Schedules orgId={orgId} />
    </>
  );
}

const fileKind = (report: Report) =>
  `${report.format.includes('spreadsheet') ? 'XLSX' : report.format.includes('ndjson') ? 'JSONL' : report.format.includes('gzip') ? 'gzip' : 'CSV'}`;

function ReportRow({ orgId, report }: { orgId: string; report: Report }) {
  return (
    <tr>
      <td>{report.reportType}</td>
      <td>
        <Badge value={report.status} />
        {report.error ? <span class="muted"> {report.error.message}</span> : null}
      </td>
      <td>{fileKind(report)}</td>
      <td>
        <Time value={report.requestedAt} />
      </td>
      <td>{report.rowCount ?? '—'}</td>
      <td>
        {report.status === 'COMPLETED' ? (
          <ActionButton
            aria-label="Download"
            title={`Download the ${report.reportType} report`}
            onAction={async () => {
              const { url } = await call(
                api.GET('/api/wp-crm/reports/{organisationId}/{reportId}/download', {
                  params: {
                    path: { organisationId: orgId, reportId: report.reportId },
                    query: { redirect: 'false' },
                  },
                }),
              );
              const anchor = document.createElement('a');
              anchor.href = url;
              anchor.rel = 'noopener';
              anchor.click();
            }}
          >
            Download
          </ActionButton>
        ) : null}
      </td>
    </tr>
  );
}

/** A 409 as people read it: when a report of this type can be requested again. */
function availableAgain(error: unknown, reportType: string): string | undefined {
  if (!(error instanceof ApiError) || error.problem?.code !== 'REPORT_RATE_LIMITED') return undefined;
  const seconds = Number(error.problem.retryAfterSeconds ?? 0);
  const at = new Date(Date.now() + seconds * 1000);
  return `A ${reportType} report was requested less than 5 minutes ago or is still running. You can request the next one at ${clock.format(at)} (in ${Math.max(1, Math.ceil(seconds / 60))} min).`;
}

function RequestReport({ orgId, onRequested }: { orgId: string; onRequested: () => void }) {
  const types = useLoad(reportTypes, []);
  const [reportType, setReportType] = useState('CHAT');
  const [format, setFormat] = useState<(typeof FORMATS)[number]>('csv');
  const [compression, setCompression] = useState<(typeof COMPRESSIONS)[number]>('none');
  const [filters, setFilters] = useState<FilterValues>({});
  const [waiting, setWaiting] = useState<string>();
  const chosen = types.value?.find((entry) => entry.reportType === reportType);
  return (
    <OpenableForm
      label="Request report"
      onSubmit={async () => {
        setWaiting(undefined);
        const defined = Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined));
        try {
          await call(
            api.POST('/api/wp-crm/reports/{organisationId}', {
              params: { path: { organisationId: orgId } },
              body: { reportType, format, compression, ...defined } as never,
            }),
          );
        } catch (error) {
          const message = availableAgain(error, reportType);
          if (!message) throw error;
          setWaiting(message);
          return false;
        }
        onRequested();
        return true;
      }}
    >
      {() => (
        <>
          <div class="form-grid">
            <Field label="Report type">
              {(id) => (
                <select
                  id={id}
                  value={reportType}
                  onChange={(event) => {
                    setReportType(event.currentTarget.value);
                    setFilters({});
                  }}
                >
                  {(types.value ?? [{ reportType: 'CHAT' }]).map((entry) => (
                    <option key={entry.reportType}>{entry.reportType}</option>
                  ))}
                </select>
              )}
            </Field>
            <Field label="Format">
              {(id) => (
                <select id={id} value={format} onChange={(event) => setFormat(event.currentTarget.value as 'csv')}>
                  <option value="csv">CSV</option>
                  <option value="xlsx">Excel (XLSX)</option>
                  <option value="jsonl">JSON lines</option>
                </select>
              )}
            </Field>
            <Field label="Compression">
              {(id) => (
                <select
                  id={id}
                  value={compression}
                  onChange={(event) => setCompression(event.currentTarget.value as 'none')}
                >
                  <option value="none">None</option>
                  <option value="gzip">gzip</option>
                </select>
              )}
            </Field>
          </div>
          {types.loading ? <Loading what="the filters" /> : null}
          <ErrorNotice error={types.error} />
          {chosen ? (
            <fieldset class="filters" key={reportType}>
              <legend>Filters of {reportType} reports (all optional)</legend>
              <div class="form-grid">
                {Object.entries(chosen.filters).map(([name, schema]) => (
                  <FilterControl
                    key={name}
                    name={name}
                    schema={schema}
                    onChange={(value) => setFilters((current) => ({ ...current, [name]: value }))}
                  />
                ))}
              </div>
            </fieldset>
          ) : null}
          {waiting ? (
            <p class="notice warn" role="alert">
              {waiting}
            </p>
          ) : null}
        </>
      )}
    </OpenableForm>
  );
}

const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

function Schedules({ orgId }: { orgId: string }) {
  const canManage = useCanManage();
  const params = { params: { path: { organisationId: orgId } } };
  const list = useLoad(() => call(api.GET('/api/wp-crm/report-schedules/{organisationId}', params)), [orgId]);
  const types = useLoad(reportTypes, []);
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const [draft, setDraft] = useState({
    reportType: 'CHAT',
    format: 'csv',
    every: 'day',
    at: '07:00',
    timezone: zone,
    dayOfWeek: 1,
    dayOfMonth: 1,
    previous: true,
  });
  const set = (patch: Partial<typeof draft>) => setDraft((current) => ({ ...current, ...patch }));
  const change = async (scheduleId: string, body: { status: 'active' | 'paused' } | 'delete') => {
    const target = { params: { path: { organisationId: orgId, scheduleId } } };
    if (body === 'delete') await call(api.DELETE('/api/wp-crm/report-schedules/{organisationId}/{scheduleId}', target));
    else await call(api.PATCH('/api/wp-crm/report-schedules/{organisationId}/{scheduleId}', { ...target, body }));
    list.reload();
  };
  return (
    <Section
      title="Schedules"
      actions={
        canManage ? (
          <OpenableForm
            label="Create schedule"
            onSubmit={async () => {
              await call(
                api.POST('/api/wp-crm/report-schedules/{organisationId}', {
                  ...params,
                  body: {
                    reportType: draft.reportType,
                    format: draft.format,
                    schedule: {
                      every: draft.every,
                      at: draft.at,
                      timezone: draft.timezone,
                      ...(draft.every === 'week' ? { dayOfWeek: draft.dayOfWeek } : {}),
                      ...(draft.every === 'month' ? { dayOfMonth: draft.dayOfMonth } : {}),
                    },
                    ...(draft.previous ? { period: 'previous' } : {}),
                  } as never,
                }),
              );
              list.reload();
              return true;
            }}
          >
            {() => (
              <div class="form-grid">
                <Field label="Scheduled report type">
                  {(id) => (
                    <select
                      id={id}
                      value={draft.reportType}
                      onChange={(e) => set({ reportType: e.currentTarget.value })}
                    >
                      {(types.value ?? [{ reportType: 'CHAT' }]).map((entry) => (
                        <option key={entry.reportType}>{entry.reportType}</option>
                      ))}
                    </select>
                  )}
                </Field>
                <Field label="Scheduled format">
                  {(id) => (
                    <select id={id} value={draft.format} onChange={(e) => set({ format: e.currentTarget.value })}>
                      {FORMATS.map((value) => (
                        <option key={value}>{value}</option>
                      ))}
                    </select>
                  )}
                </Field>
                <Field label="Every">
                  {(id) => (
                    <select id={id} value={draft.every} onChange={(e) => set({ every: e.currentTarget.value })}>
                      <option value="day">day</option>
                      <option value="week">week</option>
                      <option value="month">month</option>
                    </select>
                  )}
                </Field>
                {draft.every === 'week' ? (
                  <Field label="Day of the week">
                    {(id) => (
                      <select
                        id={id}
                        value={draft.dayOfWeek}
                        onChange={(e) => set({ dayOfWeek: Number(e.currentTarget.value) })}
                      >
                        {WEEKDAYS.map((day, index) => (
                          <option key={day} value={index + 1}>
                            {day}
                          </option>
                        ))}
                      </select>
                    )}
                  </Field>
                ) : null}
                {draft.every === 'month' ? (
                  <Field label="Day of the month" hint="1 to 28">
                    {(id, hint) => (
                      <input
                        id={id}
                        type="number"
                        min={1}
                        max={28}
                        aria-describedby={hint}
                        value={draft.dayOfMonth}
                        onInput={(e) => set({ dayOfMonth: Number(e.currentTarget.value) })}
                      />
                    )}
                  </Field>
                ) : null}
                <Field label="At">
                  {(id) => (
                    <input
                      id={id}
                      type="time"
                      required
                      value={draft.at}
                      onInput={(e) => set({ at: e.currentTarget.value })}
                    />
                  )}
                </Field>
                <Field label="Time zone" hint="Yours by default">
                  {(id, hint) => (
                    <input
                      id={id}
                      required
                      aria-describedby={hint}
                      value={draft.timezone}
                      onInput={(e) => set({ timezone: e.currentTarget.value })}
                    />
                  )}
                </Field>
                <div class="check">
                  <input
                    type="checkbox"
                    id="schedule-previous"
                    checked={draft.previous}
                    onChange={(e) => set({ previous: e.currentTarget.checked })}
                  />
                  <label for="schedule-previous">
                    Cover the previous whole period (yesterday, last week, last month)
                  </label>
                </div>
              </div>
            )}
          </OpenableForm>
        ) : null
      }
    >
      {list.loading ? <Loading what="schedules" /> : null}
      <ErrorNotice error={list.error} />
      {list.value?.schedules.length === 0 ? <Empty>No schedules.</Empty> : null}
      {list.value?.schedules.length ? (
        <Table
          label="Schedules"
          head={canManage ? ['Type', 'When', 'Status', 'Next run', ''] : ['Type', 'When', 'Status', 'Next run']}
        >
          {list.value.schedules.map((schedule) => (
            <tr key={schedule.scheduleId}>
              <td>
                {schedule.reportType} <span class="muted">{schedule.format}</span>
              </td>
              <td>
                every {schedule.schedule.every} at {schedule.schedule.at}{' '}
                <span class="muted">{schedule.schedule.timezone}</span>
              </td>
              <td>
                <Badge value={schedule.status} />
              </td>
              <td>
                <Time value={schedule.nextRunAt} />
              </td>
              {canManage ? (
                <td class="row">
                  {schedule.status === 'active' ? (
                    <ActionButton onAction={() => change(schedule.scheduleId, { status: 'paused' })}>
                      Pause
                    </ActionButton>
                  ) : (
                    <ActionButton onAction={() => change(schedule.scheduleId, { status: 'active' })}>
                      Resume
                    </ActionButton>
                  )}
                  <ActionButton
                    onAction={async () => {
                      if (confirm(`Delete the ${schedule.reportType} schedule?`))
                        await change(schedule.scheduleId, 'delete');
                    }}
                  >
                    Delete
                  </ActionButton>
                </td>
              ) : null}
            </tr>
          ))}
        </Table>
      ) : null}
    </Section>
  );
}
