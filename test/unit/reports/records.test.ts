import { describe, expect, it } from 'vitest';
import {
  type CrmRecord,
  parseRecordLine,
  RECORD_KINDS,
  REPORT_TYPES,
  recordId,
  recordTime,
} from '#shared/domain/reports/records';
import { build } from './builders.ts';

const line = (recordType: string, fields: Record<string, unknown>) => ({ recordType, ...fields });
const errorsOf = (value: unknown) => {
  const result = parseRecordLine(value);
  return result.ok ? [] : result.errors;
};

describe('record kinds', () => {
  it('lists the nine types in contract order', () => {
    expect(REPORT_TYPES).toEqual([
      'CHAT',
      'CONTACT',
      'TICKET',
      'CALL_LOG',
      'GOAL',
      'BOOKING',
      'FOLLOW_UPS',
      'SURVEY_RESPONSES',
      'FLOW_RESPONSES',
    ]);
  });

  it.each([
    ['CHAT', 'chatId', 'updatedAt'],
    ['CONTACT', 'contactId', 'createdAt'],
    ['TICKET', 'ticketId', 'createdAt'],
    ['CALL_LOG', 'callId', 'initiatedAt'],
    ['GOAL', 'goalEventId', 'recordedAt'],
    ['BOOKING', 'bookingId', 'startsAt'],
    ['FOLLOW_UPS', 'followUpId', 'dueAt'],
    ['SURVEY_RESPONSES', 'responseId', 'startedAt'],
    ['FLOW_RESPONSES', 'responseId', 'respondedAt'],
  ] as const)('%s is identified by %s and ordered by %s', (type, idField, timeField) => {
    const record = build(type);

    expect([RECORD_KINDS[type].idField, RECORD_KINDS[type].timeField]).toEqual([idField, timeField]);
    expect(recordId(type, record)).toBe((record as Record<string, unknown>)[idField]);
    expect(recordTime(type, record)).toBe((record as Record<string, unknown>)[timeField]);
  });

  it.each([
    ['CHAT', ['createdAt', 'updatedAt']],
    ['BOOKING', ['startsAt', 'endsAt']],
    ['SURVEY_RESPONSES', ['startedAt', 'completedAt']],
    ['CALL_LOG', ['initiatedAt']],
  ] as const)('knows the time columns of %s', (type, columns) => {
    expect(RECORD_KINDS[type].timeColumns).toEqual(columns);
  });
});

describe('parseRecordLine', () => {
  it.each(REPORT_TYPES)('accepts a minimal %s line and tags it with its type', (type) => {
    const result = parseRecordLine(line(type, build(type)));

    expect(result).toEqual({ ok: true, record: { recordType: type, ...build(type) } });
  });

  it('accepts every optional field', () => {
    const chat = {
      ...build('CHAT'),
      externalChatId: '120363000000000001@g.us',
      botJourneyStatus: 'AGENT_TRANSFERRED',
      lastMessageFrom: 'GUEST',
      primaryAssigneeUserId: 'u1',
    };
    const survey = { ...build('SURVEY_RESPONSES'), channel: 'WHATSAPP', completedAt: '2026-11-15T13:00:00Z' };

    expect(errorsOf(line('CHAT', chat))).toEqual([]);
    expect(errorsOf(line('SURVEY_RESPONSES', survey))).toEqual([]);
  });

  it('normalises every time to UTC with milliseconds, so stored times sort as text', () => {
    const result = parseRecordLine(
      line('BOOKING', {
        ...build('BOOKING'),
        startsAt: '2026-11-30T10:00:00+02:00',
        endsAt: '2026-11-30t23:30:00.5-01:00',
      }),
    );

    expect(result.ok && result.record).toMatchObject({
      startsAt: '2026-11-30T08:00:00.000Z',
      endsAt: '2026-12-01T00:30:00.500Z',
    });
  });

  it('keeps a record of custom fields as parsed, nested values and all', () => {
    const customFields = JSON.parse('{"tier":"gold","nested":{"a":[1,{"b":null}]},"__proto__":{"x":1}}');

    const result = parseRecordLine(line('CONTACT', { ...build('CONTACT'), customFields }));

    expect(result.ok && (result.record as Extract<CrmRecord, { recordType: 'CONTACT' }>).customFields).toBe(
      customFields,
    );
  });

  it.each([
    [{ recordType: 'INVOICE' }, '/recordType', 'must be one of CHAT'],
    [{ recordType: 'chat' }, '/recordType', 'must be one of CHAT'],
    [{}, '/recordType', 'must be one of CHAT'],
  ])('refuses %j at %s', (value, pointer, message) => {
    expect(errorsOf(value)).toEqual([{ pointer, message: expect.stringContaining(message) }]);
  });

  it('refuses a line that is not an object at the root', () => {
    expect(errorsOf('CHAT')).toEqual([{ pointer: '', message: expect.any(String) }]);
  });

  it('names a missing field and an unknown one', () => {
    const { name, ...withoutName } = build('CHAT');

    expect(errorsOf(line('CHAT', withoutName))).toEqual([{ pointer: '/name', message: 'is required' }]);
    expect(errorsOf(line('CHAT', { ...build('CHAT'), orgId: 'o1' }))).toEqual([
      { pointer: '/orgId', message: 'unknown property' },
    ]);
    expect(errorsOf(line('GOAL', { ...build('GOAL'), 'a/b~c': 1 }))).toEqual([
      { pointer: '/a~1b~0c', message: 'unknown property' },
    ]);
  });

  it('refuses a string holding an unpaired surrogate wherever it is, keys of objects included, in document order', () => {
    // As an import line arrives: JSON text with \\u escapes.
    const value = JSON.parse(
      JSON.stringify({
        ...line('CONTACT', build('CONTACT')),
        name: 'Ada \uD83D',
        channelIds: ['ch-1', '\uDE00x'],
        customFields: { tier: { 'a/\uDBFF': 'gold', ok: '😀', tail: 'z\uDC00' } },
      }),
    );

    expect(errorsOf(value)).toEqual([
      { pointer: '/name', message: 'must not be text that holds an unpaired surrogate (U+D83D at character 5)' },
      {
        pointer: '/channelIds/1',
        message: 'must not be text that holds an unpaired surrogate (U+DE00 at character 1)',
      },
      {
        pointer: '/customFields/tier/a~1\uDBFF',
        message: 'must not be a key that holds an unpaired surrogate (U+DBFF at character 3)',
      },
      {
        pointer: '/customFields/tier/tail',
        message: 'must not be text that holds an unpaired surrogate (U+DC00 at character 2)',
      },
    ]);
  });

  it('accepts surrogate pairs (astral characters) and reports an unpaired surrogate beside the schema errors', () => {
    expect(errorsOf(line('CHAT', { ...build('CHAT'), name: '😀 𝄞 \uD83D\uDE00' }))).toEqual([]);
    expect(errorsOf(line('TICKET', { ...build('TICKET'), remarks: '\uD800', priority: 'SOMEDAY' }))).toEqual([
      { pointer: '/remarks', message: expect.stringContaining('unpaired surrogate') },
      { pointer: '/priority', message: expect.stringContaining('must be one of') },
    ]);
  });

  it('walks a deeply nested object without overflowing the stack', () => {
    let nested: unknown = '\uD800';
    for (let depth = 0; depth < 100_000; depth++) nested = [nested];

    const errors = errorsOf(line('GOAL', { ...build('GOAL'), trackerValues: { deep: nested } }));

    expect(errors).toEqual([
      { pointer: `/trackerValues/deep${'/0'.repeat(100_000)}`, message: expect.stringContaining('unpaired surrogate') },
    ]);
  });

  it('lists every problem of a line', () => {
    const errors = errorsOf(line('TICKET', { ...build('TICKET'), number: -1, priority: 'CRITICAL', issueNames: [1] }));

    expect(errors.map((error) => error.pointer)).toEqual(['/number', '/priority', '/issueNames/0']);
  });

  it.each([
    ['TICKET', 'number', -1, 'must be a non-negative integer'],
    ['TICKET', 'number', 1.5, 'must be a non-negative integer'],
    ['TICKET', 'number', '12', 'Invalid type'],
    ['TICKET', 'number', 2 ** 53, 'must be a non-negative integer'],
    ['CALL_LOG', 'talkDurationSeconds', -3, 'must be a non-negative integer'],
    ['CALL_LOG', 'talkDurationSeconds', 12.25, 'must be a non-negative integer'],
    ['CHAT', 'chatId', '', 'must not be empty'],
    ['CHAT', 'chatId', 'x'.repeat(257), 'must be at most 256 characters'],
    ['CHAT', 'chatId', 7, 'Invalid type'],
    ['CHAT', 'isArchived', 'false', 'Invalid type'],
    ['CHAT', 'autopilot', 1, 'Invalid type'],
    ['CHAT', 'chatType', 'group', 'must be one of INDIVIDUAL, GROUP'],
    ['CHAT', 'botJourneyStatus', 'PAUSED', 'must be one of ACTIVE'],
    ['CHAT', 'lastMessageFrom', 'guest', 'must be one of GUEST'],
    ['CHAT', 'externalChatId', null, 'Invalid type'],
    ['CHAT', 'labelIds', 'l1', 'Invalid type'],
    ['CONTACT', 'customFields', [], 'must be a JSON object'],
    ['CONTACT', 'customFields', null, 'must be a JSON object'],
    ['CONTACT', 'customFields', '{}', 'must be a JSON object'],
    ['GOAL', 'trackerValues', [1], 'must be a JSON object'],
    ['SURVEY_RESPONSES', 'answers', 'yes', 'must be a JSON object'],
    ['FLOW_RESPONSES', 'response', 1, 'must be a JSON object'],
    ['CALL_LOG', 'direction', 'IN', 'must be one of INBOUND, OUTBOUND'],
    ['CALL_LOG', 'status', 'DROPPED', 'must be one of COMPLETED'],
    ['BOOKING', 'type', 'VISIT', 'must be one of ONLINE'],
    ['BOOKING', 'status', 'DONE', 'must be one of SCHEDULED'],
    ['FOLLOW_UPS', 'kind', 'EMAIL', 'must be one of CHAT, CALL'],
    ['FOLLOW_UPS', 'status', 'OPEN', 'must be one of PENDING'],
    ['SURVEY_RESPONSES', 'status', 'DONE', 'must be one of IN_PROGRESS'],
    ['SURVEY_RESPONSES', 'source', 'EMAIL', 'must be one of INVITE'],
    ['FLOW_RESPONSES', 'source', 'Journey', 'must be one of journey'],
  ] as const)('refuses %s.%s = %j', (type, field, value, message) => {
    expect(errorsOf(line(type, { ...build(type), [field]: value }))).toEqual([
      { pointer: `/${field}`, message: expect.stringContaining(message) },
    ]);
  });

  it('points into arrays', () => {
    expect(errorsOf(line('CHAT', { ...build('CHAT'), assignedUserIds: ['u1', '', 3] }))).toEqual([
      { pointer: '/assignedUserIds/1', message: 'must not be empty' },
      { pointer: '/assignedUserIds/2', message: expect.stringContaining('Invalid type') },
    ]);
  });

  it.each([
    '2026-11-30',
    '2026-11-30T10:00:00',
    '2026-11-30 10:00:00Z',
    '2026-11-30T10:00Z',
    '2026-11-30T10:00:00+0200',
    '2026-02-29T10:00:00Z',
    '2026-11-31T10:00:00Z',
    '2026-11-30T25:00:00Z',
    '2026-11-30T23:59:60Z',
    '9999-12-31T23:00:00-05:00',
    'Mon, 30 Nov 2026 10:00:00 GMT',
    '1764496800000',
  ])('refuses the time %j', (time) => {
    expect(errorsOf(line('CHAT', { ...build('CHAT'), updatedAt: time }))).toEqual([
      { pointer: '/updatedAt', message: 'must be an RFC 3339 date-time with Z or an offset' },
    ]);
  });

  it.each([
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['2000-02-29T12:00:00.123456789Z', '2000-02-29T12:00:00.123Z'],
    ['0050-06-01T00:00:00Z', '0050-06-01T00:00:00.000Z'],
    ['2026-01-01T00:30:00+01:00', '2025-12-31T23:30:00.000Z'],
  ])('stores the time %j as %j', (time, stored) => {
    const result = parseRecordLine(line('GOAL', { ...build('GOAL'), recordedAt: time }));

    expect(result.ok && result.record).toMatchObject({ recordedAt: stored });
  });
});
