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
 * | error codes as strings                                                      | fails the group request … string       |
 * | an unreadable item in the same list / an unreadable change in the batch     | applies the readable part …            |
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PHONE_NUMBER_ID } from '#infra/local/seed';
import type { Variants } from '#infra/local/simulator/server';
import { createdGroup, requestGroup, untilFinal } from '#test/support/groups';
import { eventually, useLocalStack } from '#test/support/local-stack';

type Body = Record<string, unknown>;

describe('the local stack with the simulator sending each published variant (CONTRACT §16)', () => {
  const api = useLocalStack();
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

  const cases: [string, Partial<Variants>][] = [
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
      expect(changes.map((event) => [event.change, event.phone_numbers])).toEqual([
        ['joined', [`+${leaver}`]],
        ['joined', [`+${removed}`]],
        ['joined', [`+${stays}`]],
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
});
