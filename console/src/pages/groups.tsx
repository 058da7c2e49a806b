import { useState } from 'preact/hooks';
import { api, call, path, type Schemas } from '../api.ts';
import { Link, setQuery, useRoute } from '../router.tsx';
import {
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

type CreationStatus = Schemas['GroupRequestView'];
const FINAL = new Set(['created', 'failed']);

export function GroupsPage() {
  const orgId = useOrg();
  const canManage = useCanManage();
  const { query } = useRoute();
  const status = query.get('status') ?? '';
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const groups = useLoad(
    () =>
      call(
        api.GET('/api/wp-crm/groups/{orgId}', {
          params: {
            ...path(orgId),
            query: {
              ...(status ? { groupStatus: status as 'active' } : {}),
              ...(cursor ? { cursor } : {}),
            },
          },
        }),
      ),
    [orgId, status, cursor],
  );
  const [requests, setRequests] = useState<string[]>([]);
  return (
    <>
      <PageTitle
        actions={
          canManage ? (
            <CreateGroup orgId={orgId} onCreated={(requestId) => setRequests((list) => [requestId, ...list])} />
          ) : null
        }
      >
        Groups
      </PageTitle>
      {requests.length > 0 ? (
        <Section title="Groups being created">
          <ul class="plain">
            {requests.map((requestId) => (
              <CreationProgress key={requestId} orgId={orgId} requestId={requestId} onFinal={() => groups.reload()} />
            ))}
          </ul>
        </Section>
      ) : null}
      <Section
        title="All groups"
        actions={
          <Field label="Status">
            {(id) => (
              <select
                id={id}
                value={status}
                onChange={(event) => {
                  setCursors([]);
                  setQuery('status', event.currentTarget.value);
                }}
              >
                <option value="">Any</option>
                <option value="active">active</option>
                <option value="suspended">suspended</option>
                <option value="deleted">deleted</option>
              </select>
            )}
          </Field>
        }
      >
        {groups.loading ? <Loading what="groups" /> : null}
        <ErrorNotice error={groups.error} />
        {groups.value?.groups.length === 0 ? <Empty>No groups{status ? ` with status ${status}` : ''}.</Empty> : null}
        {groups.value?.groups.length ? (
          <Table label="Groups" head={['Subject', 'Status', 'Members', 'Join approval', 'Created']}>
            {groups.value.groups.map((group) => (
              <tr key={group.chatId}>
                <td>
                  <Link to={`/groups/${group.chatId}`}>{group.subject}</Link>
                </td>
                <td>
                  <Badge value={group.groupStatus} />
                </td>
                <td>{group.participantCount}</td>
                <td>{group.joinApprovalRequired ? 'required' : 'open'}</td>
                <td>
                  <Time value={group.createdAt} />
                </td>
              </tr>
            ))}
          </Table>
        ) : null}
        <Pager
          hasPrevious={cursors.length > 0}
          nextCursor={groups.value?.nextCursor}
          onFirst={() => setCursors([])}
          onNext={() => groups.value?.nextCursor && setCursors((list) => [...list, groups.value!.nextCursor!])}
        />
      </Section>
    </>
  );
}

function CreateGroup({ orgId, onCreated }: { orgId: string; onCreated: (requestId: string) => void }) {
  const channels = useLoad(() => call(api.GET('/api/wp-crm/channels/{orgId}', { params: path(orgId) })), [orgId]);
  const eligible = (channels.value?.channels ?? []).filter(
    (channel) => channel.type === 'MESSAGING_OFFICIAL' && channel.officialBusinessAccount && channel.groupsEligible,
  );
  const [channelId, setChannelId] = useState('');
  const [subject, setSubject] = useState('');
  const [description, setDescription] = useState('');
  const [approval, setApproval] = useState(true);
  return (
    <OpenableForm
      label="Create group"
      onSubmit={async () => {
        const accepted = await call(
          api.POST('/api/wp-crm/groups/{orgId}', {
            params: path(orgId),
            body: {
              channelId: channelId || eligible[0]?.channelId || '',
              subject,
              ...(description ? { description } : {}),
              requireJoinApproval: approval,
            },
          }),
        );
        onCreated(accepted.requestId);
        setSubject('');
        setDescription('');
        return true;
      }}
    >
      {() => (
        <>
          <Field label="Channel" hint="Official WhatsApp Business channels that may open groups">
            {(id, hint) => (
              <select
                id={id}
                aria-describedby={hint}
                required
                value={channelId || eligible[0]?.channelId}
                onChange={(event) => setChannelId(event.currentTarget.value)}
              >
                {eligible.map((channel) => (
                  <option key={channel.channelId} value={channel.channelId}>
                    {channel.name} ({channel.phoneNumber})
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Subject">
            {(id) => (
              <input
                id={id}
                required
                maxLength={128}
                value={subject}
                onInput={(event) => setSubject(event.currentTarget.value)}
              />
            )}
          </Field>
          <Field label="Description">
            {(id) => (
              <textarea
                id={id}
                maxLength={2048}
                rows={3}
                value={description}
                onInput={(event) => setDescription(event.currentTarget.value)}
              />
            )}
          </Field>
          <div class="check">
            <input
              type="checkbox"
              id="join-approval"
              checked={approval}
              onChange={(event) => setApproval(event.currentTarget.checked)}
            />
            <label for="join-approval">Join approval: people who join by the invite link wait for approval</label>
          </div>
        </>
      )}
    </OpenableForm>
  );
}

/** A creation request's status, polled until it is final: pending → creating → created or failed. */
function CreationProgress(props: { orgId: string; requestId: string; onFinal: () => void }) {
  const status = useLoad<CreationStatus>(
    async () => {
      const value = await call(
        api.GET('/api/wp-crm/groups/{orgId}/creation-status/{requestId}', {
          params: { path: { orgId: props.orgId, requestId: props.requestId } },
        }),
      );
      if (FINAL.has(value.status)) props.onFinal();
      return value;
    },
    [props.requestId],
    { everyMs: 1_000, keepPolling: (value) => !FINAL.has(value.status) },
  );
  const value = status.value;
  return (
    <li>
      <ErrorNotice error={status.error} />
      {value ? (
        <span role="status">
          <strong>{value.subject}</strong>: <Badge value={value.status} />
          {value.chatId ? (
            <>
              {' '}
              <Link to={`/groups/${value.chatId}`}>Open the group</Link>
            </>
          ) : null}
          {value.error ? (
            <span class="muted">
              {' '}
              {value.error.code}: {value.error.message}
            </span>
          ) : null}
        </span>
      ) : (
        <Loading what="the request" />
      )}
    </li>
  );
}
