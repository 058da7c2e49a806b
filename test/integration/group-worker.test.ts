import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DynamoChatStore } from '#shared/adapters/dynamodb/chat-store';
import { DynamoEventOutbox } from '#shared/adapters/dynamodb/event-outbox';
import { DynamoGroupRequestStore } from '#shared/adapters/dynamodb/group-request-store';
import { DynamoIdentityStore } from '#shared/adapters/dynamodb/identity-store';
import { DynamoLimits } from '#shared/adapters/dynamodb/limits';
import { DynamoOrgAdminStore } from '#shared/adapters/dynamodb/org-admin-store';
import { SecretsManagerChannelCredentials } from '#shared/adapters/keys/channel-credentials';
import { loadConfig } from '#shared/config/env';
import { notificationEvent, publishOnce } from '#shared/domain/events/publish-once';
import { applyGroupCreateNotification } from '#shared/domain/groups/apply-group-create';
import { createGroup } from '#shared/domain/groups/create-group';
import { GROUP_REQUEST_ON_HOLD, processGroupRequest } from '#shared/domain/groups/process-group-request';
import { sweepGroupRequests } from '#shared/domain/groups/sweep-group-requests';
import { createChannel, createOrg } from '#shared/domain/orgs/administer';
import { logger } from '#shared/observability/logger';
import type { DomainEvent } from '#shared/ports/event-publisher';
import { ulidIds } from '#shared/ports/ids';
import { type NetworkChannel, NetworkError } from '#shared/ports/messaging-network';
import { RetryLater } from '#shared/queue/retry';
import { useDynamo } from '#test/support/dynamo';
import { FakeNetwork } from '#test/support/fake-network';

const table = useDynamo();
const PHONE_NUMBER_ID = '555000111';

function harness() {
  const time = { now: new Date('2026-11-22T10:00:00.000Z') };
  const network = new FakeNetwork(() => time.now);
  const published: DomainEvent[] = [];
  const queued: unknown[] = [];
  const suspended = new Set<string>();
  const identity = new DynamoIdentityStore(table.db, table.tableName);
  const access = {
    workStatus: async (orgId: string) => (suspended.has(orgId) ? ('suspended' as const) : ('active' as const)),
  };
  const deps = {
    access,
    config: loadConfig({ GROUP_RECONCILE_SETTLE_SECONDS: '30', NETWORK_RETRY_BASE_SECONDS: '1' }),
    clock: { now: () => time.now },
    ids: ulidIds(),
    identity,
    groups: new DynamoGroupRequestStore(table.db, table.tableName),
    chats: new DynamoChatStore(table.db, table.tableName),
    limits: new DynamoLimits(table.db, table.tableName),
    outbox: new DynamoEventOutbox(table.db, table.tableName),
    queue: { send: async (_: string, body: unknown) => void queued.push(body), retryAfter: async () => undefined },
    events: { publish: async (events: DomainEvent[]) => void published.push(...events) },
    network,
    channelCredentials: new SecretsManagerChannelCredentials(() => {
      throw new Error('no secrets in tests');
    }, access),
  };
  const advance = (seconds: number) => {
    time.now = new Date(time.now.getTime() + seconds * 1000);
  };
  return { deps, network, published, queued, advance, suspended };
}

/** `channel disable` / `channel enable`, as the operator commands write it. */
async function setDisabled(orgId: string, channelId: string, disabled: boolean) {
  const now = new Date().toISOString();
  await new DynamoOrgAdminStore(table.db, table.tableName).updateChannel(
    orgId,
    channelId,
    { disabledAt: disabled ? now : null },
    now,
  );
}

async function newRequest(h: ReturnType<typeof harness>, subject = 'Team') {
  const { orgId } = await createOrg(h.deps, { name: 'Org' });
  const { channelId } = await createChannel(h.deps, {
    orgId,
    name: 'WA',
    type: 'MESSAGING_OFFICIAL',
    phoneNumber: '+4915100000001',
    officialBusinessAccount: true,
    phoneNumberId: `${PHONE_NUMBER_ID}-${orgId}`,
    accessToken: 'token',
  });
  const { requestId } = await createGroup(h.deps, { orgId, channelId, subject, requireJoinApproval: true });
  return { orgId, channelId, requestId, phoneNumberId: `${PHONE_NUMBER_ID}-${orgId}` };
}

/** The request is created with the network's first group, and announced once. */
async function expectCreatedWithFirstGroup(h: ReturnType<typeof harness>, orgId: string, requestId: string) {
  expect(h.network.createCalls).toBe(1);
  expect(await h.deps.groups.get(orgId, requestId)).toMatchObject({
    status: 'created',
    inviteLink: `https://chat.whatsapp.com/${h.network.groupIdOf(1)}`,
  });
  expect(h.published.map((event) => event.type)).toEqual(['group.created']);
}

const success = (phoneNumberId: string, networkRequestId: string, groupId: string) => ({
  phoneNumberId,
  group: {
    request_id: networkRequestId,
    group_id: groupId,
    subject: 'Team',
    invite_link: `https://chat.whatsapp.com/${groupId}`,
  },
});

describe('group request lifecycle', () => {
  let h: ReturnType<typeof harness>;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('submits once, then becomes created with a chat and one group.created on confirmation', async () => {
    const { orgId, requestId, phoneNumberId } = await newRequest(h);

    await processGroupRequest(h.deps, { orgId, requestId }, 1);
    await processGroupRequest(h.deps, { orgId, requestId }, 2);
    const creating = await h.deps.groups.get(orgId, requestId);
    await applyGroupCreateNotification(
      h.deps,
      success(phoneNumberId, creating!.networkRequestId!, h.network.groupIdOf(1)),
    );
    await applyGroupCreateNotification(
      h.deps,
      success(phoneNumberId, creating!.networkRequestId!, h.network.groupIdOf(1)),
    );

    const created = await h.deps.groups.get(orgId, requestId);
    expect(h.network.createCalls).toBe(1);
    expect(creating?.status).toBe('creating');
    expect(created).toMatchObject({
      status: 'created',
      inviteLink: `https://chat.whatsapp.com/${h.network.groupIdOf(1)}`,
    });
    expect(created?.publishedAt).toBeDefined();
    const chat = await h.deps.chats.getChat(orgId, created!.chatId!);
    expect(chat).toMatchObject({
      chatType: 'GROUP',
      externalChatId: h.network.groupIdOf(1),
      name: 'Team',
      requireJoinApproval: true,
    });
    expect(h.published.map((event) => event.type)).toEqual(['group.created']);
    expect(h.published[0]!.data).toMatchObject({
      request_id: requestId,
      chat_id: created!.chatId,
      organisation_id: orgId,
    });
  });

  it('retries a call that certainly was not sent, making exactly one group (H-1)', async () => {
    const { orgId, requestId } = await newRequest(h);
    h.network.createScript = ['not-sent', 'not-sent', 'ok'];

    await expect(processGroupRequest(h.deps, { orgId, requestId }, 1)).rejects.toBeInstanceOf(RetryLater);
    await expect(processGroupRequest(h.deps, { orgId, requestId }, 2)).rejects.toBeInstanceOf(RetryLater);
    await processGroupRequest(h.deps, { orgId, requestId }, 3);

    expect(h.network.createCalls).toBe(3);
    expect(h.network.groups).toHaveLength(1);
    expect((await h.deps.groups.get(orgId, requestId))?.networkRequestId).toBe(h.network.requestIdOf(3));
  });

  it('after a 500 waits, finds no group, and submits again (Graph 500 then success)', async () => {
    const { orgId, requestId } = await newRequest(h);
    h.network.createScript = ['ambiguous-before', 'ok'];

    await expect(processGroupRequest(h.deps, { orgId, requestId }, 1)).rejects.toBeInstanceOf(RetryLater);
    await expect(processGroupRequest(h.deps, { orgId, requestId }, 2)).rejects.toThrow(/reconciling later/);
    h.advance(31);
    await processGroupRequest(h.deps, { orgId, requestId }, 3);

    expect(h.network.createCalls).toBe(2);
    expect(h.network.groups).toHaveLength(1);
  });

  it('reconciles a timeout after the group was made, without a second POST (H-5, F-5)', async () => {
    const { orgId, requestId } = await newRequest(h);
    h.network.createScript = ['ambiguous-after'];

    await expect(processGroupRequest(h.deps, { orgId, requestId }, 1)).rejects.toBeInstanceOf(RetryLater);
    h.advance(31);
    await processGroupRequest(h.deps, { orgId, requestId }, 2);

    await expectCreatedWithFirstGroup(h, orgId, requestId);
  });

  it('resumes a reconcile that linked the group and died before the request became created, without a second group', async () => {
    const { orgId, requestId } = await newRequest(h);
    h.network.createScript = ['ambiguous-after', 'ok'];
    await expect(processGroupRequest(h.deps, { orgId, requestId }, 1)).rejects.toBeInstanceOf(RetryLater);
    h.advance(31);
    // The run that finds the group links it to the request's chat, then the store fails before the chat is written.
    const createChat = vi.spyOn(h.deps.chats, 'createChat').mockRejectedValueOnce(new Error('store unavailable'));
    await expect(processGroupRequest(h.deps, { orgId, requestId }, 2)).rejects.toThrow('store unavailable');
    expect(await h.deps.chats.findExternalChat(h.network.groupIdOf(1))).toMatchObject({ orgId });
    createChat.mockRestore();

    await processGroupRequest(h.deps, { orgId, requestId }, 3);

    await expectCreatedWithFirstGroup(h, orgId, requestId);
  });

  it('fails a request whose channel an operator disabled before it was submitted, without calling Meta (CONTRACT §17)', async () => {
    const { orgId, channelId, requestId } = await newRequest(h);
    const now = h.deps.clock.now().toISOString();
    await new DynamoOrgAdminStore(table.db, table.tableName).updateChannel(orgId, channelId, { disabledAt: now }, now);

    await processGroupRequest(h.deps, { orgId, requestId }, 1);

    expect(h.network.createCalls).toBe(0);
    expect(await h.deps.groups.get(orgId, requestId)).toMatchObject({
      status: 'failed',
      error: { code: 'CHANNEL_DISABLED' },
    });
    expect(h.published.map((event) => event.type)).toEqual(['group.creation_failed']);
  });

  it('leaves a request whose create call may have made a group open while its channel is disabled, asking Meta nothing, and the sweeper fails it with CHANNEL_DISABLED at its timeout (CONTRACT §17)', async () => {
    const { orgId, channelId, requestId, phoneNumberId } = await newRequest(h, 'Unknown outcome');
    h.network.createScript = ['ambiguous-before'];
    await expect(processGroupRequest(h.deps, { orgId, requestId }, 1)).rejects.toBeInstanceOf(RetryLater);
    await setDisabled(orgId, channelId, true);
    const listGroups = vi.spyOn(h.network, 'listGroups');
    h.advance(31);

    await processGroupRequest(h.deps, { orgId, requestId }, 2);
    const waiting = await h.deps.groups.get(orgId, requestId);
    h.advance(600);
    await sweepGroupRequests(h.deps);

    expect(waiting).toMatchObject({ status: 'creating', submittedAt: expect.any(String) });
    expect(await h.deps.groups.get(orgId, requestId)).toMatchObject({
      status: 'failed',
      error: { code: 'CHANNEL_DISABLED' },
    });
    expect(h.network.createCalls).toBe(1);
    // The table is shared: the sweep also asks Meta for other tests' timed-out requests, on their own numbers.
    const callsForChannel = (listGroups.mock.calls as unknown as [NetworkChannel][]).filter(
      ([channel]) => channel.phoneNumberId === phoneNumberId,
    );
    expect(callsForChannel).toEqual([]);
  });

  it('keeps a confirmation without an invite link while the channel is disabled, and completes the group with the link once it is enabled', async () => {
    const { orgId, channelId, requestId, phoneNumberId } = await newRequest(h, 'Link later');
    await processGroupRequest(h.deps, { orgId, requestId }, 1);
    const { networkRequestId } = (await h.deps.groups.get(orgId, requestId))!;
    await setDisabled(orgId, channelId, true);
    const getInviteLink = vi.spyOn(h.network, 'getInviteLink');
    const linkCalls = () => getInviteLink.mock.calls.filter(([channel]) => channel.phoneNumberId === phoneNumberId);
    const confirmation = success(phoneNumberId, networkRequestId!, h.network.groupIdOf(1));
    delete (confirmation.group as { invite_link?: string }).invite_link;

    await applyGroupCreateNotification(h.deps, confirmation);
    await processGroupRequest(h.deps, { orgId, requestId }, 2);
    h.advance(600);
    await sweepGroupRequests(h.deps);
    const whileDisabled = await h.deps.groups.get(orgId, requestId);
    const callsWhileDisabled = linkCalls().length;
    await setDisabled(orgId, channelId, false);
    await processGroupRequest(h.deps, { orgId, requestId }, 3);

    expect(whileDisabled?.status).toBe('creating');
    expect(callsWhileDisabled).toBe(0);
    expect(linkCalls()).toHaveLength(1);
    await expectCreatedWithFirstGroup(h, orgId, requestId);
  });

  it('records a group Meta confirmed with its invite link while the channel is disabled, calling Meta for nothing', async () => {
    const { orgId, channelId, requestId, phoneNumberId } = await newRequest(h);
    await processGroupRequest(h.deps, { orgId, requestId }, 1);
    const { networkRequestId } = (await h.deps.groups.get(orgId, requestId))!;
    await setDisabled(orgId, channelId, true);
    const getInviteLink = vi.spyOn(h.network, 'getInviteLink');

    await applyGroupCreateNotification(h.deps, success(phoneNumberId, networkRequestId!, h.network.groupIdOf(1)));

    expect(getInviteLink).not.toHaveBeenCalled();
    await expectCreatedWithFirstGroup(h, orgId, requestId);
  });

  it("leaves a suspended organisation's request untouched: the gate's refusal goes up for the queue to put the job back", async () => {
    const { orgId, requestId } = await newRequest(h);
    h.suspended.add(orgId);

    await expect(processGroupRequest(h.deps, { orgId, requestId }, 1)).rejects.toMatchObject({ code: 'ORG_SUSPENDED' });

    expect(h.network.createCalls).toBe(0);
    expect(await h.deps.groups.get(orgId, requestId)).toMatchObject({ status: 'pending' });
  });

  it('does not reconcile while the previous create call may still be in flight, whatever the settle time', async () => {
    h.deps.config = loadConfig({ GROUP_RECONCILE_SETTLE_SECONDS: '1', NETWORK_RETRY_BASE_SECONDS: '1' });
    const { orgId, requestId } = await newRequest(h);
    h.network.createScript = ['ambiguous-before', 'ok'];

    await expect(processGroupRequest(h.deps, { orgId, requestId }, 1)).rejects.toBeInstanceOf(RetryLater);
    h.advance(h.network.callTimeoutSeconds);
    const tooEarly = processGroupRequest(h.deps, { orgId, requestId }, 2);
    await expect(tooEarly).rejects.toThrow(/reconciling later/);
    h.advance(1);
    await processGroupRequest(h.deps, { orgId, requestId }, 3);

    expect(h.network.createCalls).toBe(2);
  });

  it('applies a held confirmation on a retry after the run that linked the request id stopped short', async () => {
    const { orgId, requestId, phoneNumberId } = await newRequest(h);
    await processGroupRequest(h.deps, { orgId, requestId }, 1);
    const linked = await h.deps.groups.get(orgId, requestId);
    // The confirmation was kept before the link existed, and the linking run died before it looked for it.
    await h.deps.groups.holdConfirmation(
      orgId,
      linked!.networkRequestId!,
      success(phoneNumberId, linked!.networkRequestId!, h.network.groupIdOf(1)),
      h.deps.clock.now(),
    );

    await processGroupRequest(h.deps, { orgId, requestId }, 2);

    expect(linked?.status).toBe('creating');
    expect(await h.deps.groups.get(orgId, requestId)).toMatchObject({ status: 'created' });
    expect(h.network.createCalls).toBe(1);
  });

  it("fails with Meta's code on a permanent refusal: 131215 → CHANNEL_NOT_ELIGIBLE", async () => {
    const { orgId, requestId } = await newRequest(h);
    h.network.createScript = [{ rejected: 131215, message: 'Number not eligible for Groups APIs' }];

    await processGroupRequest(h.deps, { orgId, requestId }, 1);

    expect(await h.deps.groups.get(orgId, requestId)).toMatchObject({
      status: 'failed',
      error: { code: 'CHANNEL_NOT_ELIGIBLE', message: 'Number not eligible for Groups APIs' },
    });
    expect(h.published.map((event) => event.type)).toEqual(['group.creation_failed']);
  });

  it.each([
    [190, 'Error validating access token: Session has expired'],
    [368, 'Temporarily blocked for policies violations'],
  ])(
    'puts a request on hold with an alert when the network refuses the channel (%i), and goes on once an operator fixed it (H-3)',
    async (code, message) => {
      const alerts = vi.spyOn(logger, 'error');
      const { orgId, requestId, phoneNumberId } = await newRequest(h);
      h.network.createScript = [{ rejected: code, message }];

      await processGroupRequest(h.deps, { orgId, requestId }, 1);
      const held = await h.deps.groups.get(orgId, requestId);
      h.queued.length = 0;
      h.advance(299);
      await sweepGroupRequests(h.deps);
      const queuedEarly = [...h.queued];
      h.advance(2);
      await sweepGroupRequests(h.deps);
      await processGroupRequest(h.deps, { orgId, requestId }, 1);
      const resubmitted = await h.deps.groups.get(orgId, requestId);
      await applyGroupCreateNotification(
        h.deps,
        success(phoneNumberId, h.network.requestIdOf(2), h.network.groupIdOf(2)),
      );

      expect(held).toMatchObject({ status: 'creating', onHold: { code: String(code), message } });
      expect(held?.submittedAt).toBeUndefined();
      expect(alerts).toHaveBeenCalledWith(
        expect.stringMatching(/^alert: /),
        expect.objectContaining({ alert: GROUP_REQUEST_ON_HOLD, requestId, orgId, networkCode: code }),
      );
      expect(JSON.stringify(alerts.mock.calls)).not.toContain('token"');
      expect(queuedEarly).not.toContainEqual({ orgId, requestId });
      expect(h.queued).toContainEqual({ orgId, requestId });
      expect(resubmitted?.onHold).toBeUndefined();
      expect(resubmitted?.networkRequestId).toBe(h.network.requestIdOf(2));
      expect(h.network.createCalls).toBe(2);
      expect(await h.deps.groups.get(orgId, requestId)).toMatchObject({ status: 'created' });
      expect(h.published.map((event) => event.type)).toEqual(['group.created']);
    },
  );

  it('puts a request on hold only with the run’s own submission marker, in one conditional write', async () => {
    const { orgId, requestId } = await newRequest(h);
    const now = '2026-11-22T10:00:01.000Z';
    await h.deps.groups.transition(orgId, requestId, ['pending'], 'creating', { now });
    await h.deps.groups.markSubmission(orgId, requestId, undefined, 'marker-1', now);
    const hold = { code: '190', message: 'expired', since: '2026-11-22T10:00:02.000Z' };

    const stale = await h.deps.groups.putOnHold(orgId, requestId, 'marker-0', hold);
    const afterStale = await h.deps.groups.get(orgId, requestId);
    const own = await h.deps.groups.putOnHold(orgId, requestId, 'marker-1', hold);
    const again = await h.deps.groups.putOnHold(orgId, requestId, 'marker-1', hold);

    expect([stale, own, again]).toEqual([false, true, false]);
    expect(afterStale).toMatchObject({ submittedAt: 'marker-1' });
    expect(afterStale?.onHold).toBeUndefined();
    const held = await h.deps.groups.get(orgId, requestId);
    expect(held).toMatchObject({ status: 'creating', onHold: hold, updatedAt: hold.since });
    expect(held?.submittedAt).toBeUndefined();
  });

  it('fails a request still on hold at its confirmation timeout with the network’s code, once (H-3)', async () => {
    const { orgId, requestId } = await newRequest(h);
    const refusal = { rejected: 190, message: 'Error validating access token: Session has expired' };
    h.network.createScript = [refusal, refusal];

    await processGroupRequest(h.deps, { orgId, requestId }, 1);
    h.advance(300);
    await sweepGroupRequests(h.deps);
    await processGroupRequest(h.deps, { orgId, requestId }, 1);
    h.advance(300);
    const swept = await sweepGroupRequests(h.deps);
    await sweepGroupRequests(h.deps);

    expect(swept.timedOut).toBeGreaterThanOrEqual(1);
    expect(h.network.createCalls).toBe(2);
    expect(await h.deps.groups.get(orgId, requestId)).toMatchObject({
      status: 'failed',
      error: { code: '190', message: refusal.message },
    });
    expect(h.published.filter((event) => event.data.request_id === requestId).map((event) => event.type)).toEqual([
      'group.creation_failed',
    ]);
  });

  it('keeps a confirmation that arrives before the request id is linked, and applies it then', async () => {
    const { orgId, requestId, phoneNumberId } = await newRequest(h);

    await applyGroupCreateNotification(
      h.deps,
      success(phoneNumberId, h.network.requestIdOf(1), h.network.groupIdOf(1)),
    );
    const before = await h.deps.groups.get(orgId, requestId);
    await processGroupRequest(h.deps, { orgId, requestId }, 1);

    expect(before?.status).toBe('pending');
    expect(await h.deps.groups.get(orgId, requestId)).toMatchObject({ status: 'created' });
  });

  it('leaves a timed-out request failed when its confirmation arrives late, and deletes the orphan group', async () => {
    const { orgId, requestId, phoneNumberId } = await newRequest(h);
    await processGroupRequest(h.deps, { orgId, requestId }, 1);
    const lateGroups = h.network.groups.splice(0);
    h.advance(601);

    const sweep = await sweepGroupRequests(h.deps);
    h.network.groups.push(...lateGroups);
    await applyGroupCreateNotification(
      h.deps,
      success(phoneNumberId, h.network.requestIdOf(1), h.network.groupIdOf(1)),
    );

    expect(sweep.timedOut).toBeGreaterThanOrEqual(1);
    expect(await h.deps.groups.get(orgId, requestId)).toMatchObject({
      status: 'failed',
      error: { code: 'CONFIRMATION_TIMEOUT' },
    });
    expect(h.network.deleted).toEqual([h.network.groupIdOf(1)]);
    expect(h.published.filter((event) => event.data.request_id === requestId).map((event) => event.type)).toEqual([
      'group.creation_failed',
    ]);
  });

  it('asks Meta before timing a request out, and completes it with the group Meta lists (CONTRACT §18)', async () => {
    const { orgId, requestId } = await newRequest(h);
    await processGroupRequest(h.deps, { orgId, requestId }, 1);
    h.advance(601);

    const sweep = await sweepGroupRequests(h.deps);
    const again = await sweepGroupRequests(h.deps);

    expect(sweep).toMatchObject({ found: 1 });
    expect(again.found).toBe(0);
    const created = await h.deps.groups.get(orgId, requestId);
    expect(created).toMatchObject({
      status: 'created',
      inviteLink: `https://chat.whatsapp.com/${h.network.groupIdOf(1)}`,
    });
    expect(await h.deps.chats.getChat(orgId, created!.chatId!)).toMatchObject({
      externalChatId: h.network.groupIdOf(1),
    });
    expect(h.network.deleted).toEqual([]);
    expect(h.published.filter((event) => event.data.request_id === requestId).map((event) => event.type)).toEqual([
      'group.created',
    ]);
  });

  it('keeps a timed-out request open while Meta cannot answer the listing, and fails it once Meta lists no such group', async () => {
    const { orgId, requestId } = await newRequest(h);
    await processGroupRequest(h.deps, { orgId, requestId }, 1);
    h.network.groups.splice(0);
    h.advance(601);
    vi.spyOn(h.network, 'listGroups').mockRejectedValueOnce(new NetworkError('ambiguous', 'timed out'));

    const unanswered = await sweepGroupRequests(h.deps);
    const stillOpen = await h.deps.groups.get(orgId, requestId);
    const answered = await sweepGroupRequests(h.deps);

    expect(unanswered.timedOut).toBe(0);
    expect(stillOpen?.status).toBe('creating');
    expect(answered.timedOut).toBe(1);
    expect(await h.deps.groups.get(orgId, requestId)).toMatchObject({
      status: 'failed',
      error: { code: 'CONFIRMATION_TIMEOUT' },
    });
  });

  it("leaves a suspended organisation's request untouched past its timeout, and decides it after the resume (CONTRACT §17)", async () => {
    const { orgId, requestId } = await newRequest(h);
    await processGroupRequest(h.deps, { orgId, requestId }, 1);
    // Another organisation's request, in the same sweep, is decided as usual.
    const other = await newRequest(h, 'Other team');
    await processGroupRequest(h.deps, { orgId: other.orgId, requestId: other.requestId }, 1);
    h.suspended.add(orgId);
    h.advance(601);
    const listed = vi.spyOn(h.network, 'listGroups');

    const whileSuspended = await sweepGroupRequests(h.deps);
    const untouched = await h.deps.groups.get(orgId, requestId);
    h.suspended.delete(orgId);
    const afterResume = await sweepGroupRequests(h.deps);

    expect(whileSuspended).toMatchObject({ timedOut: 0, found: 1, requeued: 0, suspendedWaiting: 1 });
    expect(await h.deps.groups.get(other.orgId, other.requestId)).toMatchObject({ status: 'created' });
    expect(untouched?.status).toBe('creating');
    expect(listed).toHaveBeenCalledTimes(2);
    expect(afterResume.found).toBe(1);
    expect(await h.deps.groups.get(orgId, requestId)).toMatchObject({ status: 'created' });
  });

  it('does not time out a request whose create call may still be making the group', async () => {
    const { orgId, requestId } = await newRequest(h);
    h.advance(590);
    h.network.createScript = ['ambiguous-before'];
    await processGroupRequest(h.deps, { orgId, requestId }, 1).catch(() => undefined);
    h.advance(11);
    const listed = vi.spyOn(h.network, 'listGroups');

    const early = await sweepGroupRequests(h.deps);
    h.advance(30);
    const late = await sweepGroupRequests(h.deps);

    expect(early.timedOut).toBe(0);
    expect(listed).toHaveBeenCalledTimes(1);
    expect(late.timedOut).toBe(1);
  });

  it("ignores a confirmation reported for another number than the request's (I-6)", async () => {
    const { orgId, requestId } = await newRequest(h);
    await processGroupRequest(h.deps, { orgId, requestId }, 1);

    await applyGroupCreateNotification(
      h.deps,
      success('someone-elses-number', h.network.requestIdOf(1), h.network.groupIdOf(1)),
    );

    expect((await h.deps.groups.get(orgId, requestId))?.status).toBe('creating');
    expect(h.published).toEqual([]);
  });

  it('applies a failure notification once, whatever arrives after it (I-5)', async () => {
    const { orgId, requestId, phoneNumberId } = await newRequest(h);
    await processGroupRequest(h.deps, { orgId, requestId }, 1);
    const failure = {
      phoneNumberId,
      group: {
        request_id: h.network.requestIdOf(1),
        errors: [{ code: 131211, message: 'Group create limit reached' }],
      },
    };

    await applyGroupCreateNotification(h.deps, failure);
    await applyGroupCreateNotification(h.deps, failure);
    await applyGroupCreateNotification(
      h.deps,
      success(phoneNumberId, h.network.requestIdOf(1), h.network.groupIdOf(1)),
    );

    expect(await h.deps.groups.get(orgId, requestId)).toMatchObject({ status: 'failed', error: { code: '131211' } });
    expect(h.published.map((event) => event.type)).toEqual(['group.creation_failed']);
  });

  it('queues again a creating request whose job was lost after a refused call, which is then submitted again', async () => {
    const { orgId, requestId } = await newRequest(h);
    h.network.createScript = ['not-sent'];
    await expect(processGroupRequest(h.deps, { orgId, requestId }, 1)).rejects.toBeInstanceOf(RetryLater);
    h.queued.length = 0;
    h.advance(119);

    await sweepGroupRequests(h.deps);
    const queuedEarly = [...h.queued];
    h.advance(2);
    await sweepGroupRequests(h.deps);
    await processGroupRequest(h.deps, { orgId, requestId }, 1);

    // The table is shared with the other tests: look only at this request's jobs.
    expect(queuedEarly).not.toContainEqual({ orgId, requestId });
    expect(h.queued).toContainEqual({ orgId, requestId });
    expect(await h.deps.groups.get(orgId, requestId)).toMatchObject({ status: 'creating' });
    expect(h.network.createCalls).toBe(2);
  });

  it('queues again a request left pending, and republishes a final state whose event was lost', async () => {
    const { orgId, requestId, phoneNumberId } = await newRequest(h);
    h.queued.length = 0;
    h.advance(61);
    const first = await sweepGroupRequests(h.deps);
    await processGroupRequest(h.deps, { orgId, requestId }, 1);
    const lost = h.deps.events.publish;
    h.deps.events.publish = async () => {
      throw new Error('bus down');
    };
    await expect(
      applyGroupCreateNotification(h.deps, success(phoneNumberId, h.network.requestIdOf(1), h.network.groupIdOf(1))),
    ).rejects.toThrow('bus down');
    h.deps.events.publish = lost;
    h.advance(31);

    const second = await sweepGroupRequests(h.deps);

    expect(first.requeued).toBeGreaterThanOrEqual(1);
    expect(h.queued).toContainEqual({ orgId, requestId });
    expect(second.republished).toBeGreaterThanOrEqual(1);
    expect(h.published.filter((event) => event.data.request_id === requestId).map((event) => event.type)).toEqual([
      'group.created',
    ]);
    expect((await h.deps.groups.get(orgId, requestId))?.publishedAt).toBeDefined();
  });

  it('publishes through the sweeper a notification event whose publisher failed, once, and not again on a repeat', async () => {
    const event = notificationEvent('group.deleted', `G-${Date.now()}`, {
      orgId: 'a0b1c2d3-0000-4000-8000-000000000009',
      occurredAt: h.deps.clock.now().toISOString(),
      data: { chat_id: 'cht_swept' },
    });
    const working = h.deps.events.publish;
    h.deps.events.publish = async () => {
      throw new Error('bus down');
    };
    await expect(publishOnce(h.deps, event)).rejects.toThrow('bus down');
    h.deps.events.publish = working;
    await publishOnce(h.deps, event);
    const early = await sweepGroupRequests(h.deps);
    h.advance(61);

    const swept = await sweepGroupRequests(h.deps);
    const again = await sweepGroupRequests(h.deps);

    expect(early.republishedEvents).toBe(0);
    expect(swept.republishedEvents).toBe(1);
    expect(again.republishedEvents).toBe(0);
    expect(h.published.filter((published) => published.eventId === event.eventId)).toEqual([event]);
  });
});
