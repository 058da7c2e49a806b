/**
 * The local stack driven by the simulator set to each published variant of Meta's notifications (CONTRACT §16,
 * issue 20): the simulator plays Meta end to end (Graph answers and signed notifications), the effect is asserted
 * through the HTTP API and the published events. test/integration/meta-variants.test.ts posts fixtures instead.
 *
 * | Variant (simulator)                                                         | Test                                   |
 * |-----------------------------------------------------------------------------|----------------------------------------|
 * | pages spelling (defaults)                                                   | members join, leave … (pages)          |
 * | group_participant_update, group_add/remove_participants, integer timestamps | members join, leave … (openapi names)  |
 * | initiated_by beside the group object                                        | members join, leave … (beside)         |
 * | initiated_by absent (removal by request_id → removed, else left)            | members join, leave … (absent)         |
 * | the webhook page's samples as a whole (string codes, initiated_by beside)   | members join, leave … (samples preset) |
 * | error codes as strings                                                      | fails the group request … string       |
 * | an unreadable item in the same list / an unreadable change in the batch     | applies the readable part …            |
 * | members known only by user_id (+username); removal by user id               | stores and announces members … user_id |
 * | a join request (by user_id) approved → joined, gone from the list           | an approved join request …             |
 * | a removal that partly failed (failed_participants, 131201), string codes    | publishes removed and errors …         |
 * | unsupported inbound message (130501)                                        | publishes an unsupported message …     |
 * | per-member receipts: recipient_participant_id + recipient_id,               | keeps each member's delivered and read |
 * |   participant_recipient_id + group_id, members by user_id                   |                                        |
 * | late / replayed notifications (older timestamp): status, settings, member   | an older … changes nothing (…)         |
 * | empty 2xx bodies from POST /{group-id} and DELETE /{group-id}/participants  | treats Meta's empty 2xx bodies …       |
 * |   (and the whole openapi preset)                                            |                                        |
 * | the business's own invite template; any other refused with 132001           | reports Meta's refusal … (132001)      |
 * | the channel's invite template (default, or its own name and language)      | invites with the channel's template …  |
 * | more than one real item per change (itemsPerChange: many)                   | applies every item of a change …       |
 * | participants by wa_id and user_id, and parent_user_id; receipts with        | names members by both ids … (both,     |
 * |   recipient_participant_user_id and contacts[]; inbound from_user_id        |   parent_user_id)                      |
 * | ids as JSON numbers; statuses naming the member by recipient_id (group_id)  | reads ids written as numbers …         |
 * | notifications without timestamp                                             | announces every suspension … absent    |
 * | a create listing added_participants, without invite_link                    | stores the members a group was …       |
 * | a deletion that failed                                                      | keeps a group whose deletion failed …  |
 * | a settings change of profile_picture or join_approval_mode                  | applies join_approval_mode … picture   |
 * | a leave carrying request_id                                                 | reads a leave carrying a request_id …  |
 * | a known type under another field (all under group_lifecycle_update)         | reads every group notification … field |
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PHONE_NUMBER_ID } from '#infra/local/seed';
import type { Variants } from '#infra/local/simulator/server';
import { deps } from '#shared/config/deps';
import { createChannel } from '#shared/domain/orgs/administer';
import { createdGroup, requestGroup, untilFinal } from '#test/support/groups';
import { eventually, useLocalStack } from '#test/support/local-stack';
import { networkSettled } from '#test/support/meta';

type Body = Record<string, unknown>;

describe('the local stack with the simulator sending each published variant (CONTRACT §16)', () => {
  // A group per test, more than the default 30 creations a minute allow.
  const api = useLocalStack({ GROUP_CREATE_RATE_LIMIT: '1000/60' });
  const simulator = () => api.stack.simulator!;
  let admin: string;
  let sequence = 0;
  const waId = () => `49152${String(Date.now() + ++sequence).slice(-8)}`;

  beforeAll(async () => {
    admin = await api.token('CRM_ADMIN');
  });

  afterEach(async () => {
    await simulator().flushWebhooks();
    simulator().resetVariants();
  });

  const published = (type: string, chatId: string) =>
    api.stack.bus.published
      .filter((event) => event['detail-type'] === type && event.detail.chat_id === chatId)
      .map((event) => event.detail as Body);
  /** The `count` events of `type` about `chatId`, once published. */
  const events = (type: string, chatId: string, count: number) =>
    eventually(() => {
      const found = published(type, chatId);
      expect(found).toHaveLength(count);
      return found;
    });
  const participants = async (chatId: string) =>
    (
      (await (await api.call(`/groups/${api.orgId}/${chatId}/participants`, { token: admin })).json()) as {
        participants: { phoneNumber: string | null }[];
      }
    ).participants.map((participant) => participant.phoneNumber);
  /** Every notification the simulator sent was delivered and answered 200. */
  const allAnswered200 = () =>
    expect(
      simulator().webhookLog.filter((delivery) => delivery.lastStatus !== 200 || delivery.state !== 'delivered'),
    ).toEqual([]);

  const cases: [string, Partial<Variants> & { preset?: string }][] = [
    ['pages', {}],
    [
      'openapi names',
      {
        participantsField: 'group_participant_update',
        participantTypes: 'group_add_participants',
        timestamps: 'number',
      },
    ],
    ['beside', { initiatedBy: 'value' }],
    ['absent', { initiatedBy: 'absent' }],
    ['samples preset', { preset: 'samples' }],
  ];

  it.each(cases)(
    'members join, leave and are removed, each published once with its change (%s)',
    async (name, variants) => {
      const { chatId, groupId } = await createdGroup(api, admin, `Variant ${name}`);
      simulator().setVariants(variants, { groupId });
      const [leaver, removed, stays] = [waId(), waId(), waId()];

      for (const member of [leaver, removed, stays]) simulator().join(groupId, member);
      await events('group.participants_changed', chatId, 3);
      simulator().leave(groupId, leaver);
      await events('group.participants_changed', chatId, 4);
      const removal = await api.call(`/groups/${api.orgId}/${chatId}/participants`, {
        method: 'DELETE',
        token: admin,
        json: { phoneNumbers: [`+${removed}`] },
      });
      const changes = await events('group.participants_changed', chatId, 5);

      expect(removal.status).toBe(202);
      const described = changes.map((event) => [event.change, event.phone_numbers]);
      // The three joins are three notifications Meta sends at once: applied by the network worker side by side,
      // they are published in no promised order among themselves (CONTRACT §16 orders what concerns one member).
      expect(described.slice(0, 3).sort()).toEqual(
        [
          ['joined', [`+${leaver}`]],
          ['joined', [`+${removed}`]],
          ['joined', [`+${stays}`]],
        ].sort(),
      );
      expect(described.slice(3)).toEqual([
        ['left', [`+${leaver}`]],
        ['removed', [`+${removed}`]],
      ]);
      expect(await participants(chatId)).toEqual([`+${stays}`]);
      await simulator().flushWebhooks();
      allAnswered200();
    },
  );

  it('fails the group request from a group_create failure whose error code is a string', async () => {
    simulator().setVariants({ errorCodes: 'string' }, { phoneNumberId: DEMO_PHONE_NUMBER_ID });
    simulator().scriptNextGroup({ outcome: 'fail', code: 131215 });

    const response = await requestGroup(api, admin, { subject: 'String code' });
    const { requestId } = (await response.json()) as { requestId: string };
    const status = await untilFinal(api, admin, requestId);

    expect(status).toMatchObject({ status: 'failed', error: { code: 'CHANNEL_NOT_ELIGIBLE' } });
    expect(simulator().webhookLog.some((delivery) => delivery.rawBody.includes('"code":"131215"'))).toBe(true);
  });

  it.each([['item'], ['change']] as const)(
    'applies the readable part of a batch holding an unreadable %s, and answers 200',
    async (unreadable) => {
      const { chatId, groupId } = await createdGroup(api, admin, `Unreadable ${unreadable}`);
      simulator().setVariants({ unreadable }, { groupId });
      const member = waId();

      simulator().join(groupId, member);
      const [joined] = await events('group.participants_changed', chatId, 1);

      expect(joined).toMatchObject({ change: 'joined', phone_numbers: [`+${member}`] });
      expect(await participants(chatId)).toEqual([`+${member}`]);
      await simulator().flushWebhooks();
      allAnswered200();
      const marker = unreadable === 'item' ? '"group_id":null' : '"groups":"unreadable"';
      expect(simulator().webhookLog.filter((delivery) => delivery.rawBody.includes(marker))).toHaveLength(1);
    },
  );

  type Participant = { phoneNumber: string | null; userId: string | null };
  const members = async (chatId: string) =>
    (
      (await (await api.call(`/groups/${api.orgId}/${chatId}/participants`, { token: admin })).json()) as {
        participants: Participant[];
      }
    ).participants.map(({ phoneNumber, userId }) => ({ phoneNumber, userId }));

  it('stores and announces members known only by user_id, and removes one by its user id', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'User ids');
    simulator().setVariants({ participantIds: 'user_id' }, { groupId });
    const [leaver, removed] = [waId(), waId()];
    const [leaverId, removedId] = [simulator().userIdOf(leaver), simulator().userIdOf(removed)];

    simulator().join(groupId, leaver);
    simulator().join(groupId, removed);
    await events('group.participants_changed', chatId, 2);
    const listed = await members(chatId);
    simulator().leave(groupId, leaver);
    await events('group.participants_changed', chatId, 3);
    const removal = await api.call(`/groups/${api.orgId}/${chatId}/participants`, {
      method: 'DELETE',
      token: admin,
      json: { userIds: [removedId] },
    });
    const changes = await events('group.participants_changed', chatId, 4);

    expect(listed).toEqual(
      expect.arrayContaining([
        { phoneNumber: null, userId: leaverId },
        { phoneNumber: null, userId: removedId },
      ]),
    );
    expect(removal.status).toBe(202);
    expect(changes.map((event) => [event.change, event.phone_numbers, event.user_ids])).toEqual([
      ['joined', [], [leaverId]],
      ['joined', [], [removedId]],
      ['left', [], [leaverId]],
      ['removed', [], [removedId]],
    ]);
    expect(await members(chatId)).toEqual([]);
  });

  it('an approved join request (by user_id) announces the joiner and leaves the join-request list', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'Approval');
    simulator().setVariants({ participantIds: 'user_id' }, { groupId });
    const joiner = waId();
    const userId = simulator().userIdOf(joiner);

    const joinRequestId = simulator().requestToJoin(groupId, joiner);
    const [requested] = await events('group.participants_changed', chatId, 1);
    const approval = await api.call(`/groups/${api.orgId}/${chatId}/join-requests/approve`, {
      method: 'POST',
      token: admin,
      json: { joinRequestIds: [joinRequestId] },
    });
    const [, joined] = await events('group.participants_changed', chatId, 2);
    const pending = await (await api.call(`/groups/${api.orgId}/${chatId}/join-requests`, { token: admin })).json();

    expect(requested).toMatchObject({ change: 'join_requested', user_ids: [userId], join_request_id: joinRequestId });
    expect(approval.status).toBe(200);
    expect(joined).toMatchObject({ change: 'joined', phone_numbers: [], user_ids: [userId] });
    expect(pending).toMatchObject({ joinRequests: [] });
    expect(await members(chatId)).toEqual([{ phoneNumber: null, userId }]);
  });

  it('publishes removed and errors when a removal partly failed, its codes written as strings', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'Partial removal');
    simulator().setVariants({ errorCodes: 'string' }, { groupId });
    const [member, stranger] = [waId(), waId()];
    simulator().join(groupId, member);
    await events('group.participants_changed', chatId, 1);

    const removal = await api.call(`/groups/${api.orgId}/${chatId}/participants`, {
      method: 'DELETE',
      token: admin,
      json: { phoneNumbers: [`+${member}`, `+${stranger}`] },
    });
    const [, removed] = await events('group.participants_changed', chatId, 2);

    expect(removal.status).toBe(202);
    expect(removed).toMatchObject({
      change: 'removed',
      phone_numbers: [`+${member}`],
      errors: [{ phone_number: `+${stranger}`, user_id: null, code: '131212', message: expect.any(String) }],
    });
    expect(await members(chatId)).toEqual([]);
  });

  it('publishes an unsupported inbound message with message_type unsupported, no text and the error 130501', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'Unsupported');
    const member = waId();
    simulator().join(groupId, member);
    await events('group.participants_changed', chatId, 1);

    simulator().receiveMessage(groupId, { from: member, type: 'unsupported' });
    const [received] = await events('message.received', chatId, 1);

    expect(received).toMatchObject({
      from: `+${member}`,
      message_type: 'unsupported',
      text: null,
      error: { code: '130501', message: expect.any(String) },
    });
  });

  const receiptCases: [string, Partial<Variants>][] = [
    ['recipient_participant_id, recipient_id', { groupReceipts: 'participants' }],
    [
      'participant_recipient_id, group_id, user ids',
      {
        groupReceipts: 'participants',
        participantKey: 'participant_recipient_id',
        groupKey: 'group_id',
        participantIds: 'user_id',
      },
    ],
  ];

  it.each(receiptCases)(
    "keeps each member's delivered and read, moves the message only forward and names the member in message.status (%s)",
    async (_name, variants) => {
      const { chatId, groupId } = await createdGroup(api, admin, 'Receipts');
      simulator().setVariants(variants, { groupId });
      const [reader, other] = [waId(), waId()];
      simulator().join(groupId, reader);
      simulator().join(groupId, other);
      await events('group.participants_changed', chatId, 2);
      const byUserId = variants.participantIds === 'user_id';
      const member = (phone: string) =>
        byUserId
          ? { phoneNumber: null, userId: simulator().userIdOf(phone) }
          : { phoneNumber: `+${phone}`, userId: null };

      const sent = (await (
        await api.call('/messaging/send-message', { method: 'POST', token: admin, json: { chatId, text: 'Receipts?' } })
      ).json()) as { messageId: string };
      await events('message.status', chatId, 2);
      const wamid = await eventually(() => simulator().messages.find((message) => message.to === groupId)!.messageId);
      simulator().setMessageStatus(wamid, 'read', undefined, reader);
      simulator().setMessageStatus(wamid, 'delivered', undefined, reader);
      await simulator().flushWebhooks();
      const statuses = await events('message.status', chatId, 3);
      const receipts = await eventually(async () => {
        const response = await api.call(`/chats/${api.orgId}/${chatId}/messages/${sent.messageId}/receipts`, {
          token: admin,
        });
        const body = (await response.json()) as { receipts: (Participant & { status: string })[] };
        expect(body.receipts.map((receipt) => receipt.status).sort()).toEqual(['delivered', 'delivered', 'read']);
        return body.receipts;
      });

      expect(statuses.map((event) => [event.status, event.participant])).toEqual([
        ['sent', null],
        ['delivered', expect.any(Object)],
        [
          'read',
          byUserId
            ? { phone_number: null, user_id: simulator().userIdOf(reader) }
            : { phone_number: `+${reader}`, user_id: null },
        ],
      ]);
      expect(receipts.map(({ phoneNumber, userId, status }) => ({ phoneNumber, userId, status }))).toEqual(
        expect.arrayContaining([
          { ...member(reader), status: 'delivered' },
          { ...member(reader), status: 'read' },
          { ...member(other), status: 'delivered' },
        ]),
      );
    },
  );

  type GroupRead = { subject: string; groupStatus: string };
  const readGroup = async (chatId: string) =>
    (await (await api.call(`/groups/${api.orgId}/${chatId}`, { token: admin })).json()) as GroupRead;
  /** A fresh join, applied and published: every notification sent before it has been answered. */
  const barrier = async (groupId: string, chatId: string, count: number) => {
    simulator().join(groupId, waId());
    await simulator().flushWebhooks();
    await events('group.participants_changed', chatId, count);
  };

  it('an older group_suspend replayed after group_suspend_cleared changes nothing and publishes nothing (status)', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'Late suspension');
    simulator().suspend(groupId);
    await events('group.updated', chatId, 1);
    simulator().clearSuspension(groupId);
    await events('group.updated', chatId, 2);

    simulator().replay({ groupId, type: 'group_suspend', ageSeconds: 120 });
    await barrier(groupId, chatId, 1);

    expect(published('group.updated', chatId).map((event) => event.group_status)).toEqual(['suspended', 'active']);
    expect((await readGroup(chatId)).groupStatus).toBe('active');
  });

  it('an older settings update replayed after a newer one changes nothing and publishes nothing (settings)', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'Late settings');
    await api.call(`/groups/${api.orgId}/${chatId}`, { method: 'PATCH', token: admin, json: { subject: 'First' } });
    await events('group.updated', chatId, 1);
    await api.call(`/groups/${api.orgId}/${chatId}`, { method: 'PATCH', token: admin, json: { subject: 'Second' } });
    await events('group.updated', chatId, 2);

    simulator().replay({ groupId, type: 'group_settings_update', skip: 1 });
    await barrier(groupId, chatId, 1);

    expect(published('group.updated', chatId).map((event) => event.subject)).toEqual(['First', 'Second']);
    expect((await readGroup(chatId)).subject).toBe('Second');
  });

  it.each([['group_participants_add'], ['group_add_participants']])(
    'an older join replayed after the member left changes nothing and publishes nothing (member, %s)',
    async (participantTypes) => {
      const { chatId, groupId } = await createdGroup(api, admin, 'Late join');
      simulator().setVariants(
        { participantTypes: participantTypes as Variants['participantTypes'], timestamps: 'number' },
        { groupId },
      );
      const member = waId();
      simulator().join(groupId, member);
      await events('group.participants_changed', chatId, 1);
      simulator().leave(groupId, member);
      await events('group.participants_changed', chatId, 2);

      simulator().replay({ groupId, type: participantTypes, ageSeconds: 90 });
      await barrier(groupId, chatId, 3);

      const changes = published('group.participants_changed', chatId);
      expect(changes.slice(0, 2).map((event) => [event.change, event.phone_numbers])).toEqual([
        ['joined', [`+${member}`]],
        ['left', [`+${member}`]],
      ]);
      expect((await members(chatId)).map((entry) => entry.phoneNumber)).not.toContain(`+${member}`);
    },
  );

  it.each([['emptyBodies', { emptyBodies: true }] as const, ['openapi preset', { preset: 'openapi' }] as const])(
    "treats Meta's empty 2xx bodies of a settings update and a removal as success (%s)",
    async (_name, variants) => {
      const { chatId, groupId } = await createdGroup(api, admin, 'Empty bodies');
      simulator().setVariants(variants, { groupId });
      const member = waId();
      simulator().join(groupId, member);
      await events('group.participants_changed', chatId, 1);

      const settings = await api.call(`/groups/${api.orgId}/${chatId}`, {
        method: 'PATCH',
        token: admin,
        json: { subject: 'Quiet answer' },
      });
      const [updated] = await events('group.updated', chatId, 1);
      const removal = await api.call(`/groups/${api.orgId}/${chatId}/participants`, {
        method: 'DELETE',
        token: admin,
        json: { phoneNumbers: [`+${member}`] },
      });
      const [, removed] = await events('group.participants_changed', chatId, 2);

      expect([settings.status, removal.status]).toEqual([202, 202]);
      expect(updated).toMatchObject({ subject: 'Quiet answer', errors: [] });
      expect(removed).toMatchObject({ change: 'removed', phone_numbers: [`+${member}`] });
      expect((await readGroup(chatId)).subject).toBe('Quiet answer');
      const answers = simulator().requestLog.filter(
        (entry) => entry.path === `/${groupId}` || entry.path === `/${groupId}/participants`,
      );
      expect(answers.map((entry) => [entry.method, entry.status])).toEqual([
        ['POST', 200],
        ['DELETE', 200],
      ]);
    },
  );

  it("reports Meta's refusal of a template the business never added (132001) on that invitation", async () => {
    const { chatId } = await createdGroup(api, admin, 'Own template');
    simulator().setVariants(
      { inviteTemplate: { name: 'not_what_the_service_sends', language: 'xx' } },
      { phoneNumberId: DEMO_PHONE_NUMBER_ID },
    );
    const invitee = `+${waId()}`;

    const response = await api.call(`/groups/${api.orgId}/${chatId}/participants`, {
      method: 'POST',
      token: admin,
      json: { phoneNumbers: [invitee] },
    });

    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({
      invitations: [
        {
          phoneNumber: invitee,
          status: 'failed',
          error: { code: '132001', message: expect.stringContaining('Template name does not exist') },
        },
      ],
    });
  });

  const invite = async (chatId: string, phoneNumber: string) => {
    const response = await api.call(`/groups/${api.orgId}/${chatId}/participants`, {
      method: 'POST',
      token: admin,
      json: { phoneNumbers: [phoneNumber] },
    });
    expect(response.status).toBe(202);
    return ((await response.json()) as { invitations: Body[] }).invitations;
  };
  const templateSentTo = (phoneNumber: string) =>
    simulator()
      .requestLog.map((entry) => entry.body as { to?: string; template?: { name: string; language: { code: string } } })
      .find((body) => body?.to === phoneNumber.slice(1))?.template;

  it("invites with the channel's template: the default on the demo channel, its own name and language on another", async () => {
    const phoneNumberId = '200000000000077';
    const { channelId } = await createChannel(deps(), {
      orgId: api.orgId,
      name: 'Acme invites',
      type: 'MESSAGING_OFFICIAL',
      phoneNumber: '+4915100000177',
      officialBusinessAccount: true,
      phoneNumberId,
      accessToken: 'local-simulator-access-token',
      inviteTemplate: { name: 'acme_group_invite', language: 'de' },
    });
    simulator().setVariants(
      { inviteTemplate: { name: 'group_invite_link', language: 'en_US' } },
      { phoneNumberId: DEMO_PHONE_NUMBER_ID },
    );
    simulator().setVariants({ inviteTemplate: { name: 'acme_group_invite', language: 'de' } }, { phoneNumberId });
    const demo = await createdGroup(api, admin, 'Default template');
    const created = await requestGroup(api, admin, { channelId, subject: 'Own template' });
    const { requestId } = (await created.json()) as { requestId: string };
    const own = await untilFinal(api, admin, requestId);
    const [first, second] = [`+${waId()}`, `+${waId()}`];

    const viaDemo = await invite(demo.chatId, first);
    const viaOwn = await invite(own.chatId!, second);

    expect(viaDemo).toEqual([expect.objectContaining({ phoneNumber: first, status: 'sent' })]);
    expect(viaOwn).toEqual([expect.objectContaining({ phoneNumber: second, status: 'sent' })]);
    expect(templateSentTo(first)).toMatchObject({ name: 'group_invite_link', language: { code: 'en_US' } });
    expect(templateSentTo(second)).toMatchObject({ name: 'acme_group_invite', language: { code: 'de' } });
  });

  /** Every notification the simulator sent has been answered, and everything the webhook kept has been applied. */
  const settled = async () => {
    await simulator().flushWebhooks();
    await networkSettled(api);
  };
  const sentGroupMessage = async (chatId: string, groupId: string) => {
    const sent = (await (
      await api.call('/messaging/send-message', { method: 'POST', token: admin, json: { chatId, text: 'Receipts?' } })
    ).json()) as { messageId: string };
    const wamid = await eventually(() => simulator().messages.find((message) => message.to === groupId)!.messageId);
    await settled();
    return { messageId: sent.messageId, wamid };
  };
  const receiptsOf = async (chatId: string, messageId: string) =>
    (
      (await (
        await api.call(`/chats/${api.orgId}/${chatId}/messages/${messageId}/receipts`, { token: admin })
      ).json()) as {
        receipts: (Participant & { status: string })[];
      }
    ).receipts.map(({ phoneNumber, userId, status }) => ({ phoneNumber, userId, status }));

  it('applies every item of a change that carries several (itemsPerChange: many)', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'Many items');
    simulator().setVariants({ itemsPerChange: 'many' }, { groupId });
    const [first, second] = [waId(), waId()];

    simulator().join(groupId, first);
    simulator().join(groupId, second);
    await settled();

    const batched = simulator().webhookLog.filter(
      (delivery) => delivery.field === 'group_participants_update' && delivery.rawBody.includes(groupId),
    );
    expect(batched.map((delivery) => JSON.parse(delivery.rawBody).entry[0].changes[0].value.groups.length)).toEqual([
      2,
    ]);
    expect((await participants(chatId)).sort()).toEqual([`+${first}`, `+${second}`].sort());
    expect(published('group.participants_changed', chatId)).toHaveLength(2);
  });

  it.each([['both'], ['parent_user_id']] as const)(
    'names members by both ids, keeps receipts with recipient_participant_user_id and contacts[], and reads from_user_id (%s)',
    async (participantIds) => {
      const { chatId, groupId } = await createdGroup(api, admin, `Both ids ${participantIds}`);
      simulator().setVariants({ participantIds, groupReceipts: 'participants', statusContacts: true }, { groupId });
      const member = waId();
      const both = { phoneNumber: `+${member}`, userId: simulator().userIdOf(member) };

      simulator().join(groupId, member);
      await settled();
      const { messageId, wamid } = await sentGroupMessage(chatId, groupId);
      simulator().setMessageStatus(wamid, 'read', undefined, member);
      simulator().receiveMessage(groupId, { from: member, text: 'from both' });
      await settled();

      expect(await members(chatId)).toEqual([both]);
      expect(published('group.participants_changed', chatId)).toEqual([
        expect.objectContaining({ change: 'joined', phone_numbers: [both.phoneNumber], user_ids: [both.userId] }),
      ]);
      expect(await receiptsOf(chatId, messageId)).toEqual([
        { ...both, status: 'delivered' },
        { ...both, status: 'read' },
      ]);
      expect(published('message.received', chatId)).toEqual([
        expect.objectContaining({ from: both.phoneNumber, text: 'from both' }),
      ]);
      const sent = simulator().webhookLog.map((delivery) => delivery.rawBody);
      expect(sent.some((body) => body.includes('"recipient_participant_user_id"') && body.includes('"contacts"'))).toBe(
        true,
      );
      expect(sent.some((body) => body.includes('"from_user_id"'))).toBe(true);
    },
  );

  it('reads ids written as numbers, and statuses naming the group by group_id and the member by recipient_id', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'Numeric ids');
    simulator().setVariants(
      { numericIds: true, groupReceipts: 'participants', participantKey: 'recipient_id' },
      { groupId },
    );
    const [member, leaver] = [waId(), waId()];

    simulator().join(groupId, member);
    simulator().join(groupId, leaver);
    await settled();
    simulator().leave(groupId, leaver);
    const { messageId, wamid } = await sentGroupMessage(chatId, groupId);
    simulator().setMessageStatus(wamid, 'read', undefined, member);
    simulator().receiveMessage(groupId, { from: member, text: 'numeric sender' });
    await settled();

    const sent = simulator().webhookLog.map((delivery) => delivery.rawBody);
    expect(sent.some((body) => body.includes(`"wa_id":${member}`))).toBe(true);
    expect(sent.some((body) => body.includes(`"group_id":"${groupId}","recipient_id":${member}`))).toBe(true);
    expect(await participants(chatId)).toEqual([`+${member}`]);
    expect(
      published('group.participants_changed', chatId)
        .map((event) => event.change)
        .sort(),
    ).toEqual(['joined', 'joined', 'left'].sort());
    expect(await receiptsOf(chatId, messageId)).toEqual([
      { phoneNumber: `+${member}`, userId: null, status: 'delivered' },
      { phoneNumber: `+${member}`, userId: null, status: 'read' },
    ]);
    expect(published('message.received', chatId)).toEqual([expect.objectContaining({ from: `+${member}` })]);
  });

  it('announces every suspension of notifications without a timestamp (timestamps: absent)', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'No timestamps');
    simulator().setVariants({ timestamps: 'absent' }, { groupId });

    simulator().suspend(groupId);
    await settled();
    simulator().clearSuspension(groupId);
    await settled();
    simulator().suspend(groupId);
    await settled();

    expect(
      simulator().webhookLog.filter(
        (delivery) =>
          delivery.field === 'group_status_update' &&
          delivery.rawBody.includes(groupId) &&
          delivery.rawBody.includes('"timestamp"'),
      ),
    ).toEqual([]);
    expect(published('group.updated', chatId).map((event) => event.group_status)).toEqual([
      'suspended',
      'active',
      'suspended',
    ]);
    expect((await readGroup(chatId)).groupStatus).toBe('suspended');
  });

  it('stores the members a group was created with (added_participants), and asks for the invite link a create lacks', async () => {
    simulator().setVariants({ createInviteLink: false, numericIds: true }, { phoneNumberId: DEMO_PHONE_NUMBER_ID });
    const [first, second] = [waId(), waId()];
    simulator().scriptNextGroup({ outcome: 'success', addedParticipants: [first, second] });

    const { chatId, groupId, inviteLink } = await createdGroup(api, admin, 'Created with members');

    const created = simulator().webhookLog.find(
      (delivery) => delivery.rawBody.includes('"group_create"') && delivery.rawBody.includes(groupId),
    )!;
    expect(created.rawBody).not.toContain('invite_link');
    expect(created.rawBody).toContain(`"added_participants":[{"input":${first},"wa_id":${first}}`);
    expect(inviteLink).toBe(simulator().group(groupId)!.inviteLink);
    expect((await participants(chatId)).sort()).toEqual([`+${first}`, `+${second}`].sort());
  });

  it('keeps a group whose deletion failed, and publishes nothing for it', async () => {
    const { chatId } = await createdGroup(api, admin, 'Undeletable');
    simulator().scriptNextDelete({ outcome: 'fail', code: 131041 });

    const response = await api.call(`/groups/${api.orgId}/${chatId}`, { method: 'DELETE', token: admin });
    await settled();

    expect(response.status).toBe(202);
    expect(
      simulator().webhookLog.some(
        (delivery) => delivery.rawBody.includes('"group_delete"') && delivery.rawBody.includes('"errors"'),
      ),
    ).toBe(true);
    expect((await readGroup(chatId)).groupStatus).toBe('active');
    expect(published('group.deleted', chatId)).toEqual([]);
  });

  it('applies join_approval_mode from a settings change, and nothing for a new profile picture', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'Admin settings');

    simulator().changeSettings(groupId, { profilePicture: true });
    await settled();
    const afterPicture = published('group.updated', chatId);
    simulator().changeSettings(groupId, { joinApprovalMode: 'auto_approve' });
    await settled();

    expect(afterPicture).toEqual([]);
    expect(published('group.updated', chatId)).toHaveLength(1);
    const group = (await (await api.call(`/groups/${api.orgId}/${chatId}`, { token: admin })).json()) as {
      joinApprovalRequired: boolean;
    };
    expect(group.joinApprovalRequired).toBe(false);
  });

  it.each([['group'], ['value']] as const)(
    'reads a leave carrying a request_id as left (initiated_by on the %s)',
    async (initiatedBy) => {
      const { chatId, groupId } = await createdGroup(api, admin, 'Leave with request');
      simulator().setVariants({ leaveRequestId: true, initiatedBy }, { groupId });
      const member = waId();
      simulator().join(groupId, member);
      await settled();

      simulator().leave(groupId, member);
      await settled();

      expect(published('group.participants_changed', chatId).map((event) => event.change)).toEqual(['joined', 'left']);
      expect(
        simulator().webhookLog.some(
          (delivery) =>
            delivery.rawBody.includes('"initiated_by":"participant"') && delivery.rawBody.includes('"request_id"'),
        ),
      ).toBe(true);
    },
  );

  it('reads every group notification by its type when all come under group_lifecycle_update (groupField: lifecycle)', async () => {
    const { chatId, groupId } = await createdGroup(api, admin, 'One field');
    simulator().setVariants({ groupField: 'lifecycle' }, { groupId });
    const member = waId();

    simulator().join(groupId, member);
    const renamed = await api.call(`/groups/${api.orgId}/${chatId}`, {
      method: 'PATCH',
      token: admin,
      json: { subject: 'Renamed' },
    });
    await settled();
    simulator().suspend(groupId);
    await settled();

    const fields = simulator()
      .webhookLog.filter((delivery) => delivery.rawBody.includes(groupId) && !delivery.rawBody.includes('"statuses"'))
      .map((delivery) => delivery.field);
    expect(renamed.status).toBe(202);
    expect([...new Set(fields)]).toEqual(['group_lifecycle_update']);
    expect(await participants(chatId)).toEqual([`+${member}`]);
    expect(await readGroup(chatId)).toMatchObject({ subject: 'Renamed', groupStatus: 'suspended' });
  });
});
