import { describe, expect, it } from 'vitest';
import { contentKey, type GroupEvent, readNotification } from '#shared/domain/network/notification';

const change = (field: string, value: Record<string, unknown>) => ({
  object: 'whatsapp_business_account',
  entry: [{ id: '1', changes: [{ field, value: { metadata: { phone_number_id: '100' }, ...value } }] }],
});

describe('readNotification (CONTRACT §16)', () => {
  it('reads both spellings of the participants field and types, and numbers written as strings', () => {
    const { items, unreadable } = readNotification(
      change('group_participant_update', {
        groups: [
          {
            type: 'group_add_participants',
            group_id: 'G',
            timestamp: '1764000000',
            added_participants: [{ wa_id: '49' }],
          },
          { type: 'group_remove_participants', group_id: 'G', timestamp: 1764000001, errors: [{ code: '131201' }] },
        ],
      }),
    );

    expect(unreadable).toEqual([]);
    expect(items).toEqual([
      expect.objectContaining({
        kind: 'group',
        field: 'group_participants_update',
        phoneNumberId: '100',
        group: expect.objectContaining({ type: 'group_participants_add', timestamp: 1764000000 }),
      }),
      expect.objectContaining({
        group: expect.objectContaining({
          type: 'group_participants_remove',
          timestamp: 1764000001,
          errors: [{ code: 131201 }],
        }),
      }),
    ]);
  });

  it('reads initiated_by beside the group object as the group’s own, without overriding one on the object', () => {
    const { items } = readNotification(
      change('group_participants_update', {
        initiated_by: 'participant',
        groups: [
          { type: 'group_participants_remove', group_id: 'G1' },
          { type: 'group_participants_remove', group_id: 'G2', initiated_by: 'business' },
        ],
      }),
    );

    expect(items.map((item) => item.kind === 'group' && item.group.initiated_by)).toEqual(['participant', 'business']);
  });

  it('reports an unreadable item by field, type and a schema-made reason, never by its value', () => {
    const { items, unreadable } = readNotification(
      change('messages', {
        messages: [{ id: 'wamid.1', type: 'text', timestamp: '+4915112345678' }],
        statuses: [{ id: 'wamid.2', status: 'read', recipient_id: 'G', recipient_type: 'group' }],
      }),
    );

    expect(items).toEqual([expect.objectContaining({ kind: 'status' })]);
    expect(unreadable).toEqual([{ field: 'messages', type: 'text', reason: expect.stringMatching(/^timestamp: /) }]);
    expect(JSON.stringify(unreadable)).not.toContain('4915112345678');
  });

  it('reports an envelope without entries, and names that are no Meta names as null', () => {
    expect(readNotification({ hello: 'world' }).unreadable).toEqual([
      { field: null, type: null, reason: 'entry: expected an array of entries' },
    ]);
    // A field we do not subscribe to is no error: it is passed on as `other` and ignored.
    expect(readNotification(change('account_update', {}))).toEqual({
      items: [{ kind: 'other', field: 'account_update', phoneNumberId: '100' }],
      unreadable: [],
    });
    expect(
      readNotification({ entry: [{ changes: [{ field: 'Max Mustermann +49 151', value: 1 }] }] }).unreadable,
    ).toEqual([{ field: null, type: null, reason: 'value: expected an object' }]);
  });

  it('reads every id written as a JSON number as text, codes and times written as strings as numbers, null as absent', () => {
    const { items, unreadable } = readNotification({
      entry: [
        {
          changes: [
            {
              field: 'group_participants_update',
              value: {
                metadata: { phone_number_id: 100, display_phone_number: 4915100000001 },
                groups: [
                  {
                    type: 'group_join_request_created',
                    group_id: 'G',
                    timestamp: '1764000000',
                    join_request_id: 2801672570009,
                    wa_id: 4915112345678,
                    user_id: null,
                    request_id: 42,
                  },
                  {
                    type: 'group_participants_remove',
                    group_id: 'G',
                    timestamp: 1764000001,
                    removed_participants: [{ input: 4915112345679, wa_id: 4915112345679, parent_user_id: 7 }],
                    failed_participants: [{ input: 'US.1', errors: [{ code: '131212', title: null }] }],
                  },
                ],
              },
            },
            {
              field: 'messages',
              value: {
                metadata: { phone_number_id: '100' },
                messages: [{ id: 'wamid.1', from: 4915112345678, from_user_id: null, timestamp: 1764000002 }],
                statuses: [
                  {
                    id: 'wamid.2',
                    status: 'read',
                    timestamp: '1764000003',
                    group_id: 'G',
                    recipient_id: 4915112345678,
                    recipient_participant_user_id: null,
                  },
                ],
              },
            },
          ],
        },
      ],
    });

    expect(unreadable).toEqual([]);
    expect(items.map((item) => item.phoneNumberId)).toEqual(['100', '100', '100', '100']);
    expect(items[0]).toMatchObject({
      group: { join_request_id: '2801672570009', wa_id: '4915112345678', request_id: '42', timestamp: 1764000000 },
    });
    expect(items[0]).not.toHaveProperty('group.user_id');
    expect(items[1]).toMatchObject({
      group: {
        removed_participants: [{ input: '4915112345679', wa_id: '4915112345679', parent_user_id: '7' }],
        failed_participants: [{ input: 'US.1', errors: [{ code: 131212 }] }],
      },
    });
    expect(items[2]).toMatchObject({ kind: 'message', message: { from: '4915112345678', timestamp: 1764000002 } });
    expect(items[3]).toMatchObject({
      kind: 'status',
      status: { recipient_id: '4915112345678', timestamp: 1764000003 },
    });
  });

  it("gives an item without timestamp its entry's time (seconds or milliseconds), else the time it was received", () => {
    const receivedAt = new Date('2026-01-02T03:04:05.678Z');
    const suspend = { type: 'group_suspend', group_id: 'G' };

    const { items } = readNotification(
      {
        entry: [
          { time: 1764000000, changes: [{ field: 'group_status_update', value: { groups: [suspend] } }] },
          { time: 1764000000123, changes: [{ field: 'group_status_update', value: { groups: [suspend] } }] },
          { changes: [{ field: 'group_status_update', value: { groups: [suspend] } }] },
        ],
      },
      receivedAt,
    );

    expect(items.map((item) => item.kind === 'group' && item.group.timestamp)).toEqual([
      1764000000,
      1764000000.123,
      receivedAt.getTime() / 1000,
    ]);
  });

  it('applies an item mixing a numeric id, a missing timestamp and fields it does not know, and reads the rest as before', () => {
    const { items, unreadable } = readNotification(
      change('group_participants_update', {
        groups: [
          {
            type: 'group_participants_add',
            group_id: 'G',
            added_participants: [{ wa_id: 4915112345678, country_code: 'DE', display: { first: 'Ada' } }],
            subject: 12,
            reason: ['invite_link'],
            anything: { nested: [1, null] },
          },
        ],
      }),
      new Date(1764000000000),
    );

    expect(unreadable).toEqual([]);
    expect(items).toEqual([
      expect.objectContaining({
        group: expect.objectContaining({
          timestamp: 1764000000,
          added_participants: [expect.objectContaining({ wa_id: '4915112345678' })],
        }),
      }),
    ]);
  });

  it('identifies a group notification by its content: the same content (ids in either type, keys in any order) the same, any difference another', () => {
    const keyOf = (group: Record<string, unknown>, field = 'group_settings_update') => {
      const [item] = readNotification(change(field, { groups: [group] })).items;
      return item?.kind === 'group' ? item.key : undefined;
    };
    const answer = { type: 'group_settings_update', group_id: 'G', request_id: 'R', timestamp: 1764000000 };

    const key = keyOf({ ...answer, group_subject: { text: 'A', update_successful: true } });

    expect(keyOf({ group_subject: { update_successful: true, text: 'A' }, ...answer })).toBe(key);
    expect(keyOf({ ...answer, timestamp: '1764000000', group_subject: { text: 'A', update_successful: true } })).toBe(
      key,
    );
    expect(keyOf({ ...answer, group_subject: { text: 'A', update_successful: false } })).not.toBe(key);
    expect(keyOf({ ...answer, timestamp: 1764000001, group_subject: { text: 'A', update_successful: true } })).not.toBe(
      key,
    );
    expect(contentKey('group_status_update', answer as GroupEvent)).not.toBe(
      contentKey('group_settings_update', answer as GroupEvent),
    );
  });

  it('reads update_successful written as a string, and leaves a timestamp that is no number unreadable', () => {
    const { items, unreadable } = readNotification(
      change('group_settings_update', {
        groups: [
          { type: 'group_settings_update', group_id: 'G', group_subject: { text: 'A', update_successful: 'false' } },
          { type: 'group_suspend', group_id: 'G', timestamp: 'yesterday' },
        ],
      }),
    );

    expect(items).toEqual([
      expect.objectContaining({
        group: expect.objectContaining({ group_subject: { text: 'A', update_successful: false } }),
      }),
    ]);
    expect(unreadable).toEqual([
      { field: 'group_settings_update', type: 'group_suspend', reason: expect.stringMatching(/^timestamp: /) },
    ]);
  });
});
