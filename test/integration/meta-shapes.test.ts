/**
 * Meta's notifications II (CONTRACT §16 as amended, issue 26): Meta's own OpenAPI examples, the webhook reference
 * page's remaining samples and every shape the issue names, each a fixture under test/fixtures/meta/ (written by us
 * from the documented shape, ids in the type Meta wrote them), posted signed to the local stack's network webhook and
 * asserted through the HTTP API and the events published on the bus. `postNotification` answers once what the webhook
 * kept has been applied, so "published nothing" is read from the bus at once, with no waiting.
 *
 * | Shape (§16)                                                                     | Fixture(s)                                   | Test                                                    |
 * |---------------------------------------------------------------------------------|----------------------------------------------|---------------------------------------------------------|
 * | OpenAPI "Group Create Message": ids as numbers, added_participants, no link     | openapi-group-create                         | Group Create Message: completes the request …           |
 * | OpenAPI "Group Settings Update": profile_picture only → nothing published       | openapi-group-settings-update                | Group Settings Update: a profile picture alone …        |
 * | OpenAPI "Group Remove Participants": typed group_create under the participants   | openapi-group-remove-participants            | Group Remove Participants: …                            |
 * |   field, ids as numbers                                                         |                                              |                                                         |
 * | OpenAPI `Statuses`: group by group_id, member by recipient_id; receipts history | openapi-status-group(-failed)                | Statuses: the group by group_id …                       |
 * | page: create succeeded with invite_link and join_approval_mode                  | lifecycle-create-succeeded                   | completes a request from a group_create with its link … |
 * | page: deletion failed                                                           | lifecycle-delete-failed                      | changes nothing and publishes nothing when a deletion … |
 * | page: join request revoked                                                      | join-request-created, join-request-revoked   | takes a revoked join request off the list …             |
 * | page: settings partly failed, with a profile picture                            | settings-partial-profile-picture             | applies the settings Meta applied …                     |
 * | numeric id + no timestamp + unknown fields in one item → applied                | participants-add-numeric-id-no-timestamp-…   | applies an item mixing a numeric id …                   |
 * | statuses without timestamp: a real second suspension announced; replay → none   | status-suspend(-cleared)-no-timestamp        | announces a second suspension …                         |
 * | two settings notifications answering one request_id → two events; replay none  | settings-subject-failed, …-subject-updated   | publishes both answers to one request_id …              |
 * | join_approval_mode in a settings notification → requireJoinApproval             | settings-join-approval-mode                  | applies join_approval_mode …                            |
 * | left / removed only for members or join requesters                              | participants-remove-no-initiator, …          | publishes left or removed only for members …            |
 * | a known type under another field                                               | status-suspend-under-lifecycle               | reads a known type under another field by its type      |
 * | participants with wa_id and user_id, and parent_user_id                         | participants-add-both-ids                    | stores a participant named by both …                    |
 * | a leave carrying request_id                                                     | participants-left-with-request-id            | reads a leave that carries a request_id as left         |
 * | recipient_participant_user_id and contacts[] in statuses                        | status-group-participant-user-id-contacts    | keeps a receipt named by phone number and user id …     |
 * | inbound from_user_id                                                            | message-from-user-id                         | stores an inbound message whose sender is named …       |
 * | more than one real item in one change                                           | participants-add-two-items                   | applies every item of one change                        |
 * Receipts history with the pages' spellings, and the members' ordering: test/integration/meta-variants.test.ts; the
 * simulator sending every shape: test/integration/simulator-variants.test.ts; the reader's table:
 * test/unit/network/notification.test.ts.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { BusEvent } from '#infra/local/bus';
import { deps } from '#shared/config/deps';
import { NETWORK_NOTIFICATION_UNREADABLE } from '#shared/domain/network/notification';
import { logger } from '#shared/observability/logger';
import { createdGroup, requestGroup, untilFinal } from '#test/support/groups';
import { eventually, useLocalStack } from '#test/support/local-stack';
import { type FixtureValues, metaFixture, notifyFixture, postNotification } from '#test/support/meta';

type Body = Record<string, unknown>;
type Member = { phoneNumber: string | null; userId: string | null; joinedAt?: string };

describe("Meta's notifications II: every published shape (CONTRACT §16)", () => {
  // A group per test, more than the default 30 creations a minute allow.
  const api = useLocalStack({ GROUP_CREATE_RATE_LIMIT: '1000/60' });
  const simulator = () => api.stack.simulator!;
  let admin: string;
  let sequence = 0;
  const unique = (prefix: string) => `${prefix}${Date.now()}${++sequence}`;
  const waId = () => `49153${String(Date.now() + ++sequence).slice(-8)}`;

  beforeAll(async () => {
    admin = await api.token('CRM_ADMIN');
  });

  const published = (type: string, chatId: string) =>
    api.stack.bus.published
      .filter((event: BusEvent) => event['detail-type'] === type && event.detail.chat_id === chatId)
      .map((event: BusEvent) => event.detail as Body);
  const participants = async (chatId: string) =>
    (
      (await (await api.call(`/groups/${api.orgId}/${chatId}/participants`, { token: admin })).json()) as {
        participants: Member[];
      }
    ).participants;
  const joinRequests = async (chatId: string) =>
    (
      (await (await api.call(`/groups/${api.orgId}/${chatId}/join-requests`, { token: admin })).json()) as {
        joinRequests: { joinRequestId: string }[];
      }
    ).joinRequests.map((request) => request.joinRequestId);
  const readGroup = async (chatId: string) =>
    (await (await api.call(`/groups/${api.orgId}/${chatId}`, { token: admin })).json()) as {
      subject: string;
      description: string | null;
      groupStatus: string;
      joinApprovalRequired: boolean;
      updatedAt: string;
    };
  const receipts = async (chatId: string, messageId: string) => {
    const response = await api.call(`/chats/${api.orgId}/${chatId}/messages/${messageId}/receipts`, { token: admin });
    expect(response.status).toBe(200);
    return ((await response.json()) as { receipts: (Member & { status: string; at: string })[] }).receipts;
  };
  const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
  const now = () => Math.floor(Date.now() / 1000);

  /** A group request the simulator accepts without a notification; returns Meta's request id and group. */
  const silentRequest = async (subject: string, groupCreated: boolean) => {
    simulator().scriptNextGroup({ outcome: 'silent', groupCreated });
    const response = await requestGroup(api, admin, { subject });
    const { requestId } = (await response.json()) as { requestId: string };
    const networkRequestId = await eventually(async () => {
      const request = await deps().groups.get(api.orgId, requestId);
      expect(request?.networkRequestId).toEqual(expect.any(String));
      return request!.networkRequestId!;
    });
    return {
      requestId,
      networkRequestId,
      group: simulator()
        .groups()
        .find((g) => g.requestId === networkRequestId),
    };
  };

  /** A group with one member in the simulator, and an outbound message Meta accepted; returns their ids. */
  const sentGroupMessage = async (subject: string) => {
    const { chatId, groupId } = await createdGroup(api, admin, subject);
    const member = waId();
    simulator().join(groupId, member);
    await simulator().flushWebhooks();
    await eventually(async () => expect(await participants(chatId)).toHaveLength(1));
    const sent = await api.call('/messaging/send-message', {
      method: 'POST',
      token: admin,
      json: { chatId, text: subject },
    });
    const { messageId } = (await sent.json()) as { messageId: string };
    const wamid = await eventually(async () => {
      const stored = await deps().chats.getMessage(api.orgId, chatId, messageId);
      expect(stored?.status).toBe('delivered');
      return stored!.networkMessageId!;
    });
    await simulator().flushWebhooks();
    return { chatId, groupId, messageId, wamid, member };
  };

  describe("Meta's OpenAPI examples (facebook/openapi, business-messaging-api_v23.0.yaml)", () => {
    it('Group Create Message: completes the request, stores added_participants (ids as JSON numbers) as members and asks Meta for the invite link it lacks', async () => {
      const { requestId, networkRequestId, group } = await silentRequest('OpenAPI create', true);
      const [first, second] = [waId(), waId()];
      const at = now() - 5;
      const notification = metaFixture('openapi-group-create', {
        GROUP_ID: group!.groupId,
        REQUEST_ID: networkRequestId,
        SUBJECT: 'OpenAPI create',
        DESCRIPTION: 'your-group-description',
        WA_ID: first,
        OTHER_WA_ID: second,
        TS: at,
      });

      const response = await postNotification(api, notification);
      const status = await untilFinal(api, admin, requestId);

      expect(JSON.stringify(notification)).toContain(`"added_participants":[{"input":${first},"wa_id":${first}}`);
      expect(response.status).toBe(200);
      expect(status).toMatchObject({ status: 'created', inviteLink: group!.inviteLink });
      expect(await participants(status.chatId!)).toEqual([
        { phoneNumber: `+${first}`, userId: null, joinedAt: iso(at) },
        { phoneNumber: `+${second}`, userId: null, joinedAt: iso(at) },
      ]);
      expect(
        api.stack.bus.published.filter(
          (event: BusEvent) => event['detail-type'] === 'group.created' && event.detail.request_id === requestId,
        ),
      ).toHaveLength(1);
    });

    it('Group Settings Update: a profile picture alone changes nothing the service keeps and publishes nothing', async () => {
      const { chatId, groupId } = await createdGroup(api, admin, 'OpenAPI picture');
      const before = await readGroup(chatId);

      await notifyFixture(api, 'openapi-group-settings-update', {
        GROUP_ID: groupId,
        REQUEST_ID: unique('784D93D0C4'),
        SHA256: 'SfInY0gGKTsJlUWbwxC1k+FAD0FZHv',
      });

      expect(await readGroup(chatId)).toEqual(before);
      expect(published('group.updated', chatId)).toEqual([]);
    });

    it('Group Remove Participants: a removal typed group_create under the participants field, ids as JSON numbers, removes both members and publishes removed', async () => {
      const { chatId, groupId } = await createdGroup(api, admin, 'OpenAPI removal');
      const [first, second] = [waId(), waId()];
      await notifyFixture(api, 'participants-add-two-items', { GROUP_ID: groupId, WA_ID: first, OTHER_WA_ID: second });

      await notifyFixture(api, 'openapi-group-remove-participants', {
        GROUP_ID: groupId,
        REQUEST_ID: unique('784D93D0C4'),
        WA_ID: first,
        OTHER_WA_ID: second,
      });

      expect(await participants(chatId)).toEqual([]);
      expect(
        published('group.participants_changed', chatId).map((event) => [event.change, event.phone_numbers]),
      ).toEqual([
        ['joined', [`+${first}`]],
        ['joined', [`+${second}`]],
        ['removed', [`+${first}`, `+${second}`]],
      ]);
    });

    it("Statuses: the group by group_id and the member by recipient_id keeps the member's delivered and read, moves the message and names the member; a member's failure fails nothing", async () => {
      const { chatId, groupId, messageId, wamid, member } = await sentGroupMessage('OpenAPI statuses');
      const at = now();
      const values = { GROUP_ID: groupId, WAMID: wamid, WA_ID: member, CONVERSATION_ID: unique('c') };

      await notifyFixture(api, 'openapi-status-group', { ...values, STATUS: 'delivered', TS: at });
      await notifyFixture(api, 'openapi-status-group', { ...values, STATUS: 'read', TS: at + 3 });
      await notifyFixture(api, 'openapi-status-group-failed', { ...values, WA_ID: waId(), TS: at + 4 });

      expect(await receipts(chatId, messageId)).toEqual([
        { phoneNumber: `+${member}`, userId: null, status: 'delivered', at: iso(at) },
        { phoneNumber: `+${member}`, userId: null, status: 'read', at: iso(at + 3) },
      ]);
      expect((await deps().chats.getMessage(api.orgId, chatId, messageId))?.status).toBe('read');
      const read = published('message.status', chatId).filter((event) => event.status === 'read');
      expect(read).toEqual([
        expect.objectContaining({ participant: { phone_number: `+${member}`, user_id: null }, error: null }),
      ]);
      expect(published('message.status', chatId).filter((event) => event.status === 'failed')).toEqual([]);
    });
  });

  describe("the webhook reference page's samples not covered before", () => {
    it('completes a request from a group_create with its invite_link, and takes its join_approval_mode', async () => {
      const { requestId, networkRequestId } = await silentRequest('Page create', false);
      const inviteLink = `https://chat.whatsapp.com/${unique('Page')}`;

      await notifyFixture(api, 'lifecycle-create-succeeded', {
        GROUP_ID: unique('Y2FwaV9ncm91cDpw'),
        REQUEST_ID: networkRequestId,
        SUBJECT: 'Page create',
        INVITE_LINK: inviteLink,
        JOIN_APPROVAL_MODE: 'auto_approve',
      });
      const status = await untilFinal(api, admin, requestId);

      expect(status).toMatchObject({ status: 'created', inviteLink });
      expect((await readGroup(status.chatId!)).joinApprovalRequired).toBe(false);
    });

    it('changes nothing and publishes nothing when a deletion failed', async () => {
      const { chatId, groupId } = await createdGroup(api, admin, 'Failed deletion');

      await notifyFixture(api, 'lifecycle-delete-failed', { GROUP_ID: groupId, REQUEST_ID: unique('req-') });

      expect((await readGroup(chatId)).groupStatus).toBe('active');
      expect(published('group.deleted', chatId)).toEqual([]);
    });

    it('takes a revoked join request off the list and announces it once, however often Meta sends it', async () => {
      const { chatId, groupId } = await createdGroup(api, admin, 'Revoked');
      const values = { GROUP_ID: groupId, WA_ID: waId(), JOIN_REQUEST_ID: unique('2801') };
      await notifyFixture(api, 'join-request-created', values);
      const revoked = metaFixture('join-request-revoked', values);

      await postNotification(api, revoked);
      await postNotification(api, revoked);

      expect(await joinRequests(chatId)).toEqual([]);
      expect(published('group.participants_changed', chatId).map((event) => event.change)).toEqual([
        'join_requested',
        'join_request_revoked',
      ]);
    });

    it('applies the settings Meta applied, reports the one it did not, and ignores the profile picture', async () => {
      const { chatId, groupId } = await createdGroup(api, admin, 'Partial settings');

      await notifyFixture(api, 'settings-partial-profile-picture', {
        GROUP_ID: groupId,
        REQUEST_ID: unique('req-'),
        SHA256: 'SfInY0gGKTsJlUWbwxC1k+FAD0FZHv',
        SUBJECT: 'Applied subject',
        DESCRIPTION: 'x'.repeat(40),
      });

      expect(await readGroup(chatId)).toMatchObject({ subject: 'Applied subject', description: null });
      expect(published('group.updated', chatId)).toEqual([
        expect.objectContaining({
          subject: 'Applied subject',
          errors: [{ field: 'description', code: '131009', message: 'Parameter value is not valid' }],
        }),
      ]);
    });
  });

  describe('the shapes of §16 as amended', () => {
    it('applies an item mixing a numeric id, a missing timestamp and unknown fields, as of when it was received', async () => {
      const { chatId, groupId } = await createdGroup(api, admin, 'Mixed item');
      const member = waId();
      const warnings = vi.spyOn(logger, 'warn');
      const before = Date.now();

      await notifyFixture(api, 'participants-add-numeric-id-no-timestamp-extra-field', {
        GROUP_ID: groupId,
        WA_ID: member,
      });

      const [joined] = await participants(chatId);
      expect(joined).toMatchObject({ phoneNumber: `+${member}`, userId: null });
      expect(Date.parse(joined!.joinedAt!)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(joined!.joinedAt!)).toBeLessThanOrEqual(Date.now());
      expect(published('group.participants_changed', chatId)).toEqual([
        expect.objectContaining({ change: 'joined', phone_numbers: [`+${member}`] }),
      ]);
      expect(
        warnings.mock.calls.filter(
          ([, extra]) => (extra as Body | undefined)?.alert === NETWORK_NOTIFICATION_UNREADABLE,
        ),
      ).toEqual([]);
      warnings.mockRestore();
    });

    it('announces a second suspension Meta sent without a timestamp, and nothing for a byte-identical replay of it', async () => {
      const { chatId, groupId } = await createdGroup(api, admin, 'Untimed status');
      const suspend = metaFixture('status-suspend-no-timestamp', { GROUP_ID: groupId });

      await postNotification(api, suspend);
      await notifyFixture(api, 'status-suspend-cleared-no-timestamp', { GROUP_ID: groupId });
      await postNotification(api, suspend);
      await postNotification(api, suspend);

      expect((await readGroup(chatId)).groupStatus).toBe('suspended');
      expect(published('group.updated', chatId).map((event) => event.group_status)).toEqual([
        'suspended',
        'active',
        'suspended',
      ]);
    });

    it('publishes both answers to one request_id (a failure, then a success), and nothing for a replay of either', async () => {
      const { chatId, groupId } = await createdGroup(api, admin, 'One request');
      const requestId = unique('req-');
      const at = now();
      const failed = metaFixture('settings-subject-failed', {
        GROUP_ID: groupId,
        REQUEST_ID: requestId,
        SUBJECT: 'Wanted',
        TS: at,
      });
      const succeeded = metaFixture('settings-subject-updated', {
        GROUP_ID: groupId,
        REQUEST_ID: requestId,
        SUBJECT: 'Wanted',
        TS: at + 1,
      });

      for (const notification of [failed, succeeded, succeeded, failed]) await postNotification(api, notification);

      expect((await readGroup(chatId)).subject).toBe('Wanted');
      expect(published('group.updated', chatId).map((event) => [event.subject, event.errors])).toEqual([
        ['One request', [{ field: 'subject', code: '131009', message: 'Parameter value is not valid' }]],
        ['Wanted', []],
      ]);
    });

    it('applies join_approval_mode from a settings notification to the group', async () => {
      const { chatId, groupId } = await createdGroup(api, admin, 'Approval mode');
      const values = (mode: string, TS: number): FixtureValues => ({
        GROUP_ID: groupId,
        REQUEST_ID: unique('req-'),
        JOIN_APPROVAL_MODE: mode,
        TS,
      });
      expect((await readGroup(chatId)).joinApprovalRequired).toBe(true);

      await notifyFixture(api, 'settings-join-approval-mode', values('auto_approve', now()));
      const opened = (await readGroup(chatId)).joinApprovalRequired;
      await notifyFixture(api, 'settings-join-approval-mode', values('approval_required', now() + 1));

      expect(opened).toBe(false);
      expect((await readGroup(chatId)).joinApprovalRequired).toBe(true);
      expect(published('group.updated', chatId)).toHaveLength(2);
    });

    it('publishes left or removed only for members or join requesters', async () => {
      const { chatId, groupId } = await createdGroup(api, admin, 'Members only');
      const [stranger, requester] = [waId(), waId()];
      const joinRequestId = unique('2801');
      await notifyFixture(api, 'join-request-created', {
        GROUP_ID: groupId,
        WA_ID: requester,
        JOIN_REQUEST_ID: joinRequestId,
      });

      await notifyFixture(api, 'participants-remove-no-initiator', { GROUP_ID: groupId, WA_ID: stranger });
      await notifyFixture(api, 'participants-remove-no-initiator-with-request', {
        GROUP_ID: groupId,
        WA_ID: stranger,
        REQUEST_ID: unique('req-'),
      });
      await notifyFixture(api, 'participants-left-initiated-by-on-group', { GROUP_ID: groupId, WA_ID: requester });

      expect(
        published('group.participants_changed', chatId).map((event) => [event.change, event.phone_numbers]),
      ).toEqual([
        ['join_requested', [`+${requester}`]],
        ['left', [`+${requester}`]],
      ]);
      expect(await joinRequests(chatId)).toEqual([]);
    });

    it('reads a known type under another field by its type', async () => {
      const { chatId, groupId } = await createdGroup(api, admin, 'Other field');

      await notifyFixture(api, 'status-suspend-under-lifecycle', { GROUP_ID: groupId });

      expect((await readGroup(chatId)).groupStatus).toBe('suspended');
      expect(published('group.updated', chatId)).toEqual([expect.objectContaining({ group_status: 'suspended' })]);
    });

    it('stores a participant named by both wa_id and user_id (and parent_user_id) with both, and announces both', async () => {
      const { chatId, groupId } = await createdGroup(api, admin, 'Both ids');
      const [first, second] = [waId(), waId()];
      const [firstUser, secondUser] = [unique('DE.'), unique('DE.')];

      await notifyFixture(api, 'participants-add-both-ids', {
        GROUP_ID: groupId,
        WA_ID: first,
        USER_ID: firstUser,
        USERNAME: 'first.user',
        OTHER_WA_ID: second,
        OTHER_USER_ID: secondUser,
        PARENT_USER_ID: unique('DE.P'),
        OTHER_USERNAME: 'second.user',
      });

      expect((await participants(chatId)).map(({ phoneNumber, userId }) => ({ phoneNumber, userId }))).toEqual([
        { phoneNumber: `+${first}`, userId: firstUser },
        { phoneNumber: `+${second}`, userId: secondUser },
      ]);
      expect(published('group.participants_changed', chatId)).toEqual([
        expect.objectContaining({ phone_numbers: [`+${first}`, `+${second}`], user_ids: [firstUser, secondUser] }),
      ]);
    });

    it('reads a leave that carries a request_id as left', async () => {
      const { chatId, groupId } = await createdGroup(api, admin, 'Leave with request');
      const member = waId();
      await notifyFixture(api, 'participants-add-openapi-names', { GROUP_ID: groupId, WA_ID: member });

      await notifyFixture(api, 'participants-left-with-request-id', {
        GROUP_ID: groupId,
        WA_ID: member,
        REQUEST_ID: unique('req-'),
      });

      expect(await participants(chatId)).toEqual([]);
      expect(published('group.participants_changed', chatId).map((event) => event.change)).toEqual(['joined', 'left']);
    });

    it('keeps a receipt named by phone number and user id (recipient_participant_user_id, contacts[])', async () => {
      const { chatId, groupId, messageId, wamid, member } = await sentGroupMessage('User id receipts');
      const userId = unique('DE.');

      await notifyFixture(api, 'status-group-participant-user-id-contacts', {
        GROUP_ID: groupId,
        WAMID: wamid,
        WA_ID: member,
        USER_ID: userId,
        NAME: 'Member',
        STATUS: 'read',
      });

      expect(await receipts(chatId, messageId)).toEqual([
        { phoneNumber: `+${member}`, userId, status: 'read', at: expect.any(String) },
      ]);
      expect(published('message.status', chatId).find((event) => event.status === 'read')).toMatchObject({
        participant: { phone_number: `+${member}`, user_id: userId },
      });
    });

    it('stores an inbound message whose sender is named only by from_user_id', async () => {
      const { chatId, groupId } = await createdGroup(api, admin, 'From user id');
      const userId = unique('DE.');
      const wamid = unique('wamid.user-');

      await notifyFixture(api, 'message-from-user-id', {
        GROUP_ID: groupId,
        USER_ID: userId,
        NAME: 'Guest',
        WAMID: wamid,
        TEXT: 'hello by user id',
      });

      expect(published('message.received', chatId)).toEqual([
        expect.objectContaining({ external_message_id: wamid, from: userId, text: 'hello by user id' }),
      ]);
    });

    it('applies every item of one change', async () => {
      const { chatId, groupId } = await createdGroup(api, admin, 'Two items');
      const [first, second] = [waId(), waId()];

      await notifyFixture(api, 'participants-add-two-items', { GROUP_ID: groupId, WA_ID: first, OTHER_WA_ID: second });

      expect((await participants(chatId)).map((member) => member.phoneNumber)).toEqual([`+${first}`, `+${second}`]);
      expect(published('group.participants_changed', chatId)).toHaveLength(2);
    });
  });
});
