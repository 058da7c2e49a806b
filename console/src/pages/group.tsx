import { useState } from 'preact/hooks';
import { api, call } from '../api.ts';
import { Link } from '../router.tsx';
import {
  ActionButton,
  Badge,
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

/** At most this many messages of a conversation are read (its pages, oldest first), the newest shown. */
const MAX_MESSAGE_PAGES = 10;

export function GroupPage({ chatId }: { chatId: string }) {
  const orgId = useOrg();
  const params = { params: { path: { orgId, chatId } } };
  const group = useLoad(() => call(api.GET('/api/wp-crm/groups/{orgId}/{chatId}', params)), [orgId, chatId]);
  return (
    <>
      <p class="crumbs">
        <Link to="/groups">Groups</Link> /
      </p>
      <PageTitle>{group.value?.subject ?? 'Group'}</PageTitle>
      {group.loading ? <Loading what="the group" /> : null}
      <ErrorNotice error={group.error} />
      {group.value ? (
        <Section title="About">
          <dl class="facts">
            <dt>Status</dt>
            <dd>
              <Badge value={group.value.groupStatus} />
            </dd>
            <dt>Description</dt>
            <dd class="prewrap">{group.value.description || '—'}</dd>
            <dt>Members</dt>
            <dd>{group.value.participantCount}</dd>
            <dt>Join approval</dt>
            <dd>{group.value.joinApprovalRequired ? 'required' : 'not required'}</dd>
            <dt>Created</dt>
            <dd>
              <Time value={group.value.createdAt} />
            </dd>
          </dl>
        </Section>
      ) : null}
      <div class="grid">
        <Participants orgId={orgId} chatId={chatId} />
        <InviteLink orgId={orgId} chatId={chatId} />
      </div>
      <JoinRequests orgId={orgId} chatId={chatId} />
      <Conversation orgId={orgId} chatId={chatId} />
    </>
  );
}

const phoneList = (text: string) =>
  text
    .split(/[\s,;]+/)
    .map((entry) => entry.trim())
    .filter(Boolean);

function Participants({ orgId, chatId }: { orgId: string; chatId: string }) {
  const canManage = useCanManage();
  const params = { params: { path: { orgId, chatId } } };
  const list = useLoad(() => call(api.GET('/api/wp-crm/groups/{orgId}/{chatId}/participants', params)), [chatId]);
  const [numbers, setNumbers] = useState('');
  const [outcome, setOutcome] = useState<string>();
  return (
    <Section
      title="Participants"
      actions={
        canManage ? (
          <OpenableForm
            label="Add participants"
            submitLabel="Add participants"
            onSubmit={async () => {
              const { invitations } = await call(
                api.POST('/api/wp-crm/groups/{orgId}/{chatId}/participants', {
                  ...params,
                  body: { phoneNumbers: phoneList(numbers) },
                }),
              );
              setOutcome(
                invitations
                  .map(
                    (invitation) =>
                      `${invitation.phoneNumber}: ${invitation.status}${invitation.error ? ` (${invitation.error.message})` : ''}`,
                  )
                  .join('; '),
              );
              setNumbers('');
              list.reload();
              return true;
            }}
          >
            {() => (
              <Field
                label="Phone numbers"
                hint="Up to 8, in international format (+4915…), separated by spaces or commas. Each is sent the invite link."
              >
                {(id, hint) => (
                  <textarea
                    id={id}
                    aria-describedby={hint}
                    required
                    rows={2}
                    value={numbers}
                    onInput={(event) => setNumbers(event.currentTarget.value)}
                  />
                )}
              </Field>
            )}
          </OpenableForm>
        ) : null
      }
    >
      {outcome ? (
        <p class="notice" role="status">
          Invitations: {outcome}
        </p>
      ) : null}
      {list.loading ? <Loading what="participants" /> : null}
      <ErrorNotice error={list.error} />
      {list.value?.participants.length === 0 ? <Empty>No participants yet.</Empty> : null}
      {list.value?.participants.length ? (
        <Table label="Participants" head={canManage ? ['Member', 'Joined', ''] : ['Member', 'Joined']}>
          {list.value.participants.map((participant) => {
            const who = participant.phoneNumber ?? participant.userId ?? '?';
            return (
              <tr key={who}>
                <td class="mono">{who}</td>
                <td>
                  <Time value={participant.joinedAt} />
                </td>
                {canManage ? (
                  <td>
                    <ActionButton
                      aria-label={`Remove ${who}`}
                      onAction={async () => {
                        await call(
                          api.DELETE('/api/wp-crm/groups/{orgId}/{chatId}/participants', {
                            ...params,
                            body: participant.phoneNumber
                              ? { phoneNumbers: [participant.phoneNumber] }
                              : { userIds: [participant.userId!] },
                          }),
                        );
                        list.reload();
                      }}
                    >
                      Remove
                    </ActionButton>
                  </td>
                ) : null}
              </tr>
            );
          })}
        </Table>
      ) : null}
    </Section>
  );
}

function InviteLink({ orgId, chatId }: { orgId: string; chatId: string }) {
  const canManage = useCanManage();
  const params = { params: { path: { orgId, chatId } } };
  const link = useLoad(() => call(api.GET('/api/wp-crm/groups/{orgId}/{chatId}/invite-link', params)), [chatId]);
  return (
    <Section title="Invite link">
      {link.loading ? <Loading what="the invite link" /> : null}
      <ErrorNotice error={link.error} />
      {link.value ? (
        <>
          <p class="mono break">{link.value.inviteLink}</p>
          <div class="row">
            <CopyButton text={link.value.inviteLink} label="Copy invite link" />
            {canManage ? (
              <ActionButton
                onAction={async () => {
                  await call(api.POST('/api/wp-crm/groups/{orgId}/{chatId}/invite-link/reset', params));
                  link.reload();
                }}
              >
                Reset invite link
              </ActionButton>
            ) : null}
          </div>
        </>
      ) : null}
    </Section>
  );
}

function JoinRequests({ orgId, chatId }: { orgId: string; chatId: string }) {
  const canManage = useCanManage();
  const params = { params: { path: { orgId, chatId } } };
  const list = useLoad(() => call(api.GET('/api/wp-crm/groups/{orgId}/{chatId}/join-requests', params)), [chatId], {
    everyMs: 10_000,
  });
  const decide = async (joinRequestId: string, verdict: 'approve' | 'reject') => {
    const route =
      verdict === 'approve'
        ? ('/api/wp-crm/groups/{orgId}/{chatId}/join-requests/approve' as const)
        : ('/api/wp-crm/groups/{orgId}/{chatId}/join-requests/reject' as const);
    const outcome = await call(api.POST(route, { ...params, body: { joinRequestIds: [joinRequestId] } }));
    if (outcome.failed.length > 0) throw new Error(outcome.failed.map((failure) => failure.error).join('; '));
    list.reload();
  };
  return (
    <Section title="Join requests">
      {list.loading ? <Loading what="join requests" /> : null}
      <ErrorNotice error={list.error} />
      {list.value?.joinRequests.length === 0 ? <Empty>Nobody is waiting to join.</Empty> : null}
      {list.value?.joinRequests.length ? (
        <Table label="Join requests" head={canManage ? ['Who', 'Asked', ''] : ['Who', 'Asked']}>
          {list.value.joinRequests.map((request) => {
            const who = request.phoneNumber ?? request.userId ?? '?';
            return (
              <tr key={request.joinRequestId}>
                <td class="mono">{who}</td>
                <td>
                  <Time value={request.createdAt} />
                </td>
                {canManage ? (
                  <td class="row">
                    <ActionButton
                      aria-label={`Approve ${who}`}
                      onAction={() => decide(request.joinRequestId, 'approve')}
                    >
                      Approve
                    </ActionButton>
                    <ActionButton aria-label={`Reject ${who}`} onAction={() => decide(request.joinRequestId, 'reject')}>
                      Reject
                    </ActionButton>
                  </td>
                ) : null}
              </tr>
            );
          })}
        </Table>
      ) : null}
    </Section>
  );
}

function Conversation({ orgId, chatId }: { orgId: string; chatId: string }) {
  const canManage = useCanManage();
  const messages = useLoad(
    async () => {
      const all = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_MESSAGE_PAGES; page++) {
        const result = await call(
          api.GET('/api/wp-crm/chats/{orgId}/{chatId}/messages', {
            params: { path: { orgId, chatId }, query: { limit: 100, ...(cursor ? { cursor } : {}) } },
          }),
        );
        all.push(...result.messages);
        if (!result.nextCursor) break;
        cursor = result.nextCursor;
      }
      return all.slice(-100);
    },
    [chatId],
    { everyMs: 5_000 },
  );
  const [text, setText] = useState('');
  const [error, setError] = useState<unknown>();
  const [sending, setSending] = useState(false);
  return (
    <Section title="Conversation">
      {messages.loading && !messages.value ? <Loading what="messages" /> : null}
      <ErrorNotice error={messages.error} />
      {messages.value?.length === 0 ? <Empty>No messages yet.</Empty> : null}
      {messages.value?.length ? (
        <ol class="messages" aria-label="Messages, oldest first">
          {messages.value.map((message) => (
            <li key={message.messageId} class={message.direction === 'OUTBOUND' ? 'out' : 'in'}>
              <div class="meta">
                <span class="mono">{message.from}</span> · <Time value={message.createdAt} /> ·{' '}
                <Badge value={message.status} />
                {message.error ? ` ${message.error.message}` : ''}
              </div>
              <p class="prewrap">{message.text}</p>
            </li>
          ))}
        </ol>
      ) : null}
      {canManage ? (
        <form
          class="send"
          onSubmit={async (event) => {
            event.preventDefault();
            setSending(true);
            setError(undefined);
            try {
              await call(api.POST('/api/wp-crm/messaging/send-message', { body: { chatId, text } }));
              setText('');
              messages.reload();
            } catch (failure) {
              setError(failure);
            } finally {
              setSending(false);
            }
          }}
        >
          <Field label="Message">
            {(id) => (
              <textarea
                id={id}
                required
                maxLength={4096}
                rows={2}
                value={text}
                onInput={(event) => setText(event.currentTarget.value)}
              />
            )}
          </Field>
          <ErrorNotice error={error} />
          <button type="submit" class="primary" disabled={sending}>
            Send
          </button>
        </form>
      ) : null}
    </Section>
  );
}
