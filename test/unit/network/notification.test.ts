import { describe, expect, it } from 'vitest';
import { readNotification } from '#shared/domain/network/notification';

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
});
