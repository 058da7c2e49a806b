import { describe, expect, it } from 'vitest';
import { compareForReport, compileReportFilter, NO_JOINS } from '#shared/domain/reports/filters';
import { REPORT_TYPES, type RecordOf, type ReportType, recordId } from '#shared/domain/reports/records';
import type { ReportFilters } from '#shared/schemas/reports';
import { anna, berlinChat, bob, build, joins, salesChat } from './builders.ts';

type Row = {
  [T in ReportType]: [T, Partial<ReportFilters<T>>, Partial<RecordOf<T>>[], Partial<RecordOf<T>>[]];
}[ReportType];

const keeps = <T extends ReportType>(type: T, filters: Partial<ReportFilters<T>>, records: Partial<RecordOf<T>>[]) => {
  const filter = compileReportFilter(type, filters);
  return records.map((overrides) => filter.keep(build(type, overrides), joins));
};

const T = '2026-11-15T12:00:00.000Z';
const LATER = '2026-11-15T12:00:00.001Z';
const EARLIER = '2026-11-15T11:59:59.999Z';

// One row per filter of the CONTRACT §8 table: [type, filters, records kept, records dropped].
const rows: Row[] = [
  ['CHAT', { isArchived: true }, [{ isArchived: true }], [{ isArchived: false }]],
  ['CHAT', { isArchived: false }, [{ isArchived: false }], [{ isArchived: true }]],
  ['CHAT', { isResolved: true }, [{ isResolved: true }], [{ isResolved: false }]],
  ['CHAT', { isResolved: false }, [{ isResolved: false }], [{ isResolved: true }]],
  ['CHAT', { isHighPriority: true }, [{ isHighPriority: true }], [{ isHighPriority: false }]],
  [
    'CHAT',
    { isBotHandled: true },
    [{ autopilot: true }, { botJourneyStatus: 'ACTIVE' }],
    [{}, { botJourneyStatus: 'AGENT_TRANSFERRED' }],
  ],
  ['CHAT', { isBotHandled: false }, [{}, { botJourneyStatus: 'CLOSED' }], [{ autopilot: true }]],
  ['CHAT', { isUnanswered: true }, [{ lastMessageFrom: 'GUEST' }], [{}, { lastMessageFrom: 'AGENT' }]],
  ['CHAT', { isUnanswered: false }, [{}, { lastMessageFrom: 'BOT' }], [{ lastMessageFrom: 'GUEST' }]],
  ['CHAT', { isAssigned: true }, [{ assignedUserIds: ['u1'] }, { assignedTeamIds: ['t1'] }], [{}]],
  ['CHAT', { isAssigned: false }, [{}], [{ assignedUserIds: ['u1'] }, { assignedTeamIds: ['t1'] }]],
  [
    'CHAT',
    { hasActiveAgentTransfer: true },
    [{ botJourneyStatus: 'AGENT_TRANSFERRED' }],
    [{}, { botJourneyStatus: 'ACTIVE' }],
  ],
  [
    'CHAT',
    { hasClosedBotSession: true },
    [{ botJourneyStatus: 'CLOSED' }, { botJourneyStatus: 'COMPLETED' }],
    [{}, { botJourneyStatus: 'ACTIVE' }, { botJourneyStatus: 'AGENT_TRANSFERRED' }],
  ],
  [
    'CHAT',
    { assignedToUserIds: ['u1', 'u2'] },
    [{ assignedUserIds: ['u9', 'u2'] }],
    [{}, { assignedUserIds: ['u3'] }, { assignedUserIds: ['U1'] }],
  ],
  ['CHAT', { assignedToTeamIds: ['t1'] }, [{ assignedTeamIds: ['t1', 't2'] }], [{}, { assignedTeamIds: ['t2'] }]],
  ['CHAT', { hasPrimaryAssignee: true }, [{ primaryAssigneeUserId: 'u1' }], [{}]],
  ['CHAT', { hasPrimaryAssignee: false }, [{}], [{ primaryAssigneeUserId: 'u1' }]],
  ['CHAT', { hasNoPrimaryAssignee: true }, [{}], [{ primaryAssigneeUserId: 'u1' }]],
  ['CHAT', { hasContacts: true }, [{ contactIds: ['c-anna'] }], [{}]],
  ['CHAT', { hasContacts: false }, [{}], [{ contactIds: ['c-anna'] }]],
  [
    'CHAT',
    { chatContactSearch: 'ANNA' },
    [{ chatId: 'chat-berlin' }],
    [{ chatId: 'chat-sales' }, { chatId: 'chat-none' }],
  ],
  ['CHAT', { chatContactSearch: '151-2345' }, [{ chatId: 'chat-berlin' }], [{ chatId: 'chat-sales' }]],
  ['CHAT', { stateMachineIds: ['sm1'] }, [{ stateMachineIds: ['sm1'] }], [{}, { stateMachineIds: ['sm2'] }]],
  ['CHAT', { currentStateIds: ['s1', 's2'] }, [{ currentStateIds: ['s2'] }], [{}, { currentStateIds: ['s3'] }]],
  ['CHAT', { hasStateMachines: true }, [{ stateMachineIds: ['sm1'] }], [{}]],
  ['CHAT', { hasStateMachines: false }, [{}], [{ stateMachineIds: ['sm1'] }]],
  [
    'CHAT',
    { search: 'berlin' },
    [{ name: 'Support BERLIN' }, { externalItems: ['Order Berlin-7'] }],
    [{}, { channelId: 'berlin' }],
  ],
  ['CHAT', { search: 'schmidt' }, [{ chatId: 'chat-berlin' }], [{ chatId: 'chat-sales' }]],
  ['CHAT', { chatType: 'GROUP' }, [{ chatType: 'GROUP' }], [{ chatType: 'INDIVIDUAL' }]],
  ['CHAT', { channelIds: ['ch-1', 'ch-2'] }, [{ channelId: 'ch-2' }], [{ channelId: 'ch-3' }, { channelId: 'CH-1' }]],
  ['CHAT', { updatedAfter: T }, [{ updatedAt: LATER }], [{ updatedAt: T }, { updatedAt: EARLIER }]],
  ['CHAT', { updatedBefore: T }, [{ updatedAt: EARLIER }], [{ updatedAt: T }, { updatedAt: LATER }]],
  ['CHAT', { labelIds: ['l1', 'l2'] }, [{ labelIds: ['l2'] }, { labelIds: ['l1', 'l9'] }], [{}, { labelIds: ['l3'] }]],
  ['CHAT', { hasLabels: true }, [{ labelIds: ['l1'] }], [{}]],
  ['CHAT', { hasLabels: false }, [{}], [{ labelIds: ['l1'] }]],
  [
    'CHAT',
    { allLabelIds: ['l1', 'l2'] },
    [{ labelIds: ['l2', 'l3', 'l1'] }],
    [{}, { labelIds: ['l1'] }, { labelIds: ['l2'] }],
  ],
  [
    'CONTACT',
    { contactSearch: 'anna' },
    [{ name: 'Anna' }, { email: 'ANNA@example.com' }],
    [{}, { phone: '+49 151' }, { contactId: 'anna' }],
  ],
  ['CONTACT', { contactSearch: '(151) 23' }, [{ phone: '+49 151 2345' }], [{}, { phone: '+49 152 2345' }]],
  ['CONTACT', { contactChannelIds: ['ch-1'] }, [{ channelIds: ['ch-2', 'ch-1'] }], [{}, { channelIds: ['ch-2'] }]],
  ['CONTACT', { contactHasChats: true }, [{ contactId: 'c-anna' }, { contactId: 'c-bob' }], [{ contactId: 'c-0' }]],
  ['CONTACT', { contactHasChats: false }, [{ contactId: 'c-0' }], [{ contactId: 'c-anna' }]],
  ['CONTACT', { contactCreatedAfter: T }, [{ createdAt: LATER }], [{ createdAt: T }]],
  ['CONTACT', { contactCreatedBefore: T }, [{ createdAt: EARLIER }], [{ createdAt: T }]],
  ['CONTACT', { contactCreatedByUserIds: ['u1'] }, [{ createdByUserId: 'u1' }], [{}, { createdByUserId: 'u2' }]],
  [
    'CONTACT',
    { contactCustomFieldRules: '[{"field":"tier","operator":"eq","value":"gold"}]' },
    [{ customFields: { tier: 'Gold' } }],
    [{}, { customFields: { tier: 'Silver' } }],
  ],
  ['TICKET', { ticketIsResolved: true }, [{ isResolved: true }], [{ isResolved: false }]],
  ['TICKET', { ticketIsResolved: false }, [{ isResolved: false }], [{ isResolved: true }]],
  [
    'TICKET',
    { ticketPriorityLevels: ['HIGH', 'URGENT'] },
    [{ priority: 'HIGH' }, { priority: 'URGENT' }],
    [{ priority: 'LOW' }, { priority: 'MEDIUM' }],
  ],
  [
    'TICKET',
    { ticketAssignedToUserIds: ['u1'] },
    [{ assignedUserIds: ['u2', 'u1'] }],
    [{}, { assignedUserIds: ['u2'] }],
  ],
  ['TICKET', { ticketCreatedByUserIds: ['u1'] }, [{ createdByUserId: 'u1' }], [{}, { createdByUserId: 'u2' }]],
  ['TICKET', { ticketMachineIds: ['tm1'] }, [{ ticketMachineId: 'tm1' }], [{}, { ticketMachineId: 'tm2' }]],
  ['TICKET', { ticketCreatedAfter: T }, [{ createdAt: LATER }], [{ createdAt: T }]],
  ['TICKET', { ticketCreatedBefore: T }, [{ createdAt: EARLIER }], [{ createdAt: T }]],
  [
    'TICKET',
    { ticketSearch: 'refund' },
    [{ remarks: 'Asked for a REFUND' }, { issueNames: ['Billing', 'Refunds'] }],
    [{}, { ticketId: 'refund' }],
  ],
  ['TICKET', { ticketSearch: 'berlin' }, [{ chatId: 'chat-berlin' }], [{ chatId: 'chat-sales' }, {}]],
  ['CALL_LOG', { callDirection: 'OUTBOUND' }, [{ direction: 'OUTBOUND' }], [{ direction: 'INBOUND' }]],
  [
    'CALL_LOG',
    { callStatuses: ['MISSED', 'NO_ANSWER'] },
    [{ status: 'MISSED' }, { status: 'NO_ANSWER' }],
    [{ status: 'COMPLETED' }, { status: 'BUSY' }],
  ],
  ['CALL_LOG', { callAgentUserIds: ['u1'] }, [{ agentUserId: 'u1' }], [{}, { agentUserId: 'u2' }]],
  [
    'CALL_LOG',
    { callAccountId: 'acc-1' },
    [{ callingAccountId: 'acc-1' }],
    [{}, { callingAccountId: 'ACC-1' }, { callingAccountId: 'acc-10' }],
  ],
  ['CALL_LOG', { callInitiatedAfter: T }, [{ initiatedAt: LATER }], [{ initiatedAt: T }]],
  ['CALL_LOG', { callInitiatedBefore: T }, [{ initiatedAt: EARLIER }], [{ initiatedAt: T }]],
  [
    'CALL_LOG',
    { callPhoneSearch: '+49 (151) 2345' },
    [{ callerNumber: '0049-151-2345-678' }, { calledNumber: '+491512345' }],
    [{}, { callerNumber: '+49 152 2345' }],
  ],
  ['CALL_LOG', { callPhoneSearch: '30123' }, [{ chatId: 'chat-berlin' }], [{ chatId: 'chat-sales' }, {}]],
  ['CALL_LOG', { callHasChat: true }, [{ chatId: 'chat-x' }], [{}]],
  ['CALL_LOG', { callHasChat: false }, [{}], [{ chatId: 'chat-x' }]],
  ['CALL_LOG', { callHasRecording: true }, [{ recordingUrl: 'https://rec.example/1' }], [{}]],
  ['CALL_LOG', { callHasRecording: false }, [{}], [{ recordingUrl: 'https://rec.example/1' }]],
  [
    'CALL_LOG',
    { callMinDurationSeconds: 60 },
    [{ talkDurationSeconds: 60 }, { talkDurationSeconds: 61 }],
    [{ talkDurationSeconds: 59 }],
  ],
  [
    'CALL_LOG',
    { callMaxDurationSeconds: 60 },
    [{ talkDurationSeconds: 60 }, { talkDurationSeconds: 0 }],
    [{ talkDurationSeconds: 61 }],
  ],
  [
    'CALL_LOG',
    { callHangupCauseSearch: 'clearing normal' },
    [{ hangupCause: 'NORMAL_CLEARING' }],
    [{}, { hangupCause: 'NORMAL_TEMPORARY_FAILURE' }],
  ],
  [
    'CALL_LOG',
    { callContactSearch: 'corp.io' },
    [{ chatId: 'chat-sales' }],
    [{ chatId: 'chat-berlin' }, {}, { chatId: 'chat-none' }],
  ],
  ['CALL_LOG', { callContactSearch: '0109999' }, [{ chatId: 'chat-sales' }], [{ chatId: 'chat-berlin' }]],
  ['GOAL', { goalRecordedAfter: T }, [{ recordedAt: LATER }], [{ recordedAt: T }]],
  ['GOAL', { goalRecordedBefore: T }, [{ recordedAt: EARLIER }], [{ recordedAt: T }]],
  ['GOAL', { goalIds: ['g1', 'g2'] }, [{ goalId: 'g2' }], [{ goalId: 'g3' }]],
  ['GOAL', { goalChannelIds: ['ch-1'] }, [{ channelId: 'ch-1' }], [{}, { channelId: 'ch-2' }]],
  [
    'GOAL',
    { goalTrackerValueRules: '[{"field":"amount","operator":"gte","value":100}]' },
    [{ trackerValues: { amount: 100 } }, { trackerValues: { amount: 250.5 } }],
    [{}, { trackerValues: { amount: 99 } }, { trackerValues: { amount: '100' } }],
  ],
  [
    'BOOKING',
    { bookingTypes: ['OFFLINE_VISIT', 'PERSONAL_BLOCK'] },
    [{ type: 'OFFLINE_VISIT' }, { type: 'PERSONAL_BLOCK' }],
    [{ type: 'ONLINE' }],
  ],
  [
    'BOOKING',
    { bookingStatuses: ['CONFIRMED', 'NO_SHOW'] },
    [{ status: 'CONFIRMED' }, { status: 'NO_SHOW' }],
    [{ status: 'SCHEDULED' }, { status: 'CANCELLED' }, { status: 'COMPLETED' }],
  ],
  ['BOOKING', { bookingAgentUserIds: ['u1'] }, [{ agentUserId: 'u1' }], [{}, { agentUserId: 'u2' }]],
  ['BOOKING', { bookingContactId: 'c-anna' }, [{ contactId: 'c-anna' }], [{}, { contactId: 'C-ANNA' }]],
  ['BOOKING', { bookingStartsOnOrAfter: T }, [{ startsAt: T }, { startsAt: LATER }], [{ startsAt: EARLIER }]],
  ['BOOKING', { bookingStartsOnOrBefore: T }, [{ startsAt: T }, { startsAt: EARLIER }], [{ startsAt: LATER }]],
  ['FOLLOW_UPS', { followUpAgentUserIds: ['u1'] }, [{ agentUserId: 'u1' }], [{}, { agentUserId: 'u2' }]],
  [
    'FOLLOW_UPS',
    { followUpStatuses: ['DUE', 'EXPIRED'] },
    [{ status: 'DUE' }, { status: 'EXPIRED' }],
    [{ status: 'PENDING' }, { status: 'COMPLETED' }, { status: 'CANCELLED' }],
  ],
  ['FOLLOW_UPS', { followUpKind: 'CALL' }, [{ kind: 'CALL' }], [{ kind: 'CHAT' }]],
  ['FOLLOW_UPS', { followUpDueOnOrAfter: T }, [{ dueAt: T }], [{ dueAt: EARLIER }]],
  ['FOLLOW_UPS', { followUpDueOnOrBefore: T }, [{ dueAt: T }], [{ dueAt: LATER }]],
  ['SURVEY_RESPONSES', { surveyFormIds: ['form-1'] }, [{ surveyFormId: 'form-1' }], [{ surveyFormId: 'form-2' }]],
  [
    'SURVEY_RESPONSES',
    { surveyStatuses: ['IN_PROGRESS', 'ABANDONED'] },
    [{ status: 'IN_PROGRESS' }, { status: 'ABANDONED' }],
    [{ status: 'COMPLETED' }],
  ],
  [
    'SURVEY_RESPONSES',
    { surveySources: ['PUBLIC_LINK', 'API'] },
    [{ source: 'PUBLIC_LINK' }, { source: 'API' }],
    [{ source: 'INVITE' }],
  ],
  ['SURVEY_RESPONSES', { surveyStartedOnOrAfter: T }, [{ startedAt: T }], [{ startedAt: EARLIER }]],
  ['SURVEY_RESPONSES', { surveyStartedOnOrBefore: T }, [{ startedAt: T }], [{ startedAt: LATER }]],
  [
    'SURVEY_RESPONSES',
    { surveyChannel: 'WHATSAPP' },
    [{ channel: 'WHATSAPP' }],
    [{}, { channel: 'whatsapp' }, { channel: 'WHATSAPP_BUSINESS' }],
  ],
  ['FLOW_RESPONSES', { flowIds: ['flow-1'] }, [{ flowId: 'flow-1' }], [{ flowId: 'flow-2' }]],
  [
    'FLOW_RESPONSES',
    { flowSources: ['campaign', 'test_send'] },
    [{ source: 'campaign' }, { source: 'test_send' }],
    [{ source: 'journey' }, { source: 'chat_template' }],
  ],
  ['FLOW_RESPONSES', { flowRespondedOnOrAfter: T }, [{ respondedAt: T }], [{ respondedAt: EARLIER }]],
  ['FLOW_RESPONSES', { flowRespondedOnOrBefore: T }, [{ respondedAt: T }], [{ respondedAt: LATER }]],
];

describe('compileReportFilter: the §8 table', () => {
  it.each(rows)('%s %j keeps exactly the matching records', (type, filters, kept, dropped) => {
    const keep = keeps as (type: ReportType, filters: object, records: object[]) => boolean[];

    expect(keep(type, filters, kept)).toEqual(kept.map(() => true));
    expect(keep(type, filters, dropped)).toEqual(dropped.map(() => false));
  });

  it.each(REPORT_TYPES)('keeps a plain open %s record when no filter is given', (type) => {
    const filter = compileReportFilter(type, {});

    expect(filter.keep(build(type), NO_JOINS)).toBe(true);
    expect(filter.range).toEqual({});
    expect(filter.joins).toEqual({ chatById: false, contactsOfChat: false, chatsOfContact: false });
  });

  it('treats empty arrays as no filter', () => {
    expect(keeps('CHAT', { labelIds: [], allLabelIds: [], channelIds: [] }, [{}, { labelIds: ['l1'] }])).toEqual([
      true,
      true,
    ]);
  });
});

describe('compileReportFilter: isResolved', () => {
  it('keeps only open chats when isResolved is omitted', () => {
    expect(keeps('CHAT', {}, [{ isResolved: false }, { isResolved: true }])).toEqual([true, false]);
  });

  it('keeps only resolved chats with isResolved: true', () => {
    expect(keeps('CHAT', { isResolved: true }, [{ isResolved: false }, { isResolved: true }])).toEqual([false, true]);
  });
});

describe('compileReportFilter: dates', () => {
  it('excludes the exact instant for After and Before, and includes it for OnOrAfter and OnOrBefore', () => {
    const at = (time: string) => [{ updatedAt: time }];
    const starts = (time: string) => [{ startsAt: time }];

    expect(keeps('CHAT', { updatedAfter: T }, at(T))).toEqual([false]);
    expect(keeps('CHAT', { updatedBefore: T }, at(T))).toEqual([false]);
    expect(keeps('BOOKING', { bookingStartsOnOrAfter: T }, starts(T))).toEqual([true]);
    expect(keeps('BOOKING', { bookingStartsOnOrBefore: T }, starts(T))).toEqual([true]);
  });

  it('resolves the range with bounds and inclusivity', () => {
    expect(compileReportFilter('CHAT', { updatedAfter: T, updatedBefore: '2026-11-30' }).range).toEqual({
      lower: { at: T, inclusive: false },
      upper: { at: '2026-11-30T00:00:00.000Z', inclusive: false },
    });
    expect(
      compileReportFilter('FOLLOW_UPS', { followUpDueOnOrAfter: '2026-11-30', followUpDueOnOrBefore: '2026-11-30' })
        .range,
    ).toEqual({
      lower: { at: '2026-11-30T00:00:00.000Z', inclusive: true },
      upper: { at: '2026-11-30T23:59:59.999Z', inclusive: true },
    });
  });

  it('reads a bare date as midnight UTC in After, Before and OnOrAfter filters', () => {
    const day = ['2026-11-29T23:59:59.999Z', '2026-11-30T00:00:00.000Z', '2026-11-30T00:00:00.001Z'];

    expect(
      keeps(
        'CHAT',
        { updatedAfter: '2026-11-30' },
        day.map((updatedAt) => ({ updatedAt })),
      ),
    ).toEqual([false, false, true]);
    expect(
      keeps(
        'CHAT',
        { updatedBefore: '2026-11-30' },
        day.map((updatedAt) => ({ updatedAt })),
      ),
    ).toEqual([true, false, false]);
    expect(
      keeps(
        'BOOKING',
        { bookingStartsOnOrAfter: '2026-11-30' },
        day.map((startsAt) => ({ startsAt })),
      ),
    ).toEqual([false, true, true]);
  });

  it('covers the whole day with a bare date in an OnOrBefore filter', () => {
    const times = ['2026-11-30T00:00:00.000Z', '2026-11-30T23:59:59.999Z', '2026-12-01T00:00:00.000Z'];

    expect(
      keeps(
        'SURVEY_RESPONSES',
        { surveyStartedOnOrBefore: '2026-11-30' },
        times.map((startedAt) => ({ startedAt })),
      ),
    ).toEqual([true, true, false]);
  });

  it('converts offsets to UTC', () => {
    const filter = compileReportFilter('CALL_LOG', {
      callInitiatedAfter: '2026-11-30T10:00:00+02:00',
      callInitiatedBefore: '2026-11-30T10:00:00-05:30',
    });
    const at = (initiatedAt: string) => filter.keep(build('CALL_LOG', { initiatedAt }), NO_JOINS);

    expect(filter.range).toEqual({
      lower: { at: '2026-11-30T08:00:00.000Z', inclusive: false },
      upper: { at: '2026-11-30T15:30:00.000Z', inclusive: false },
    });
    expect([at('2026-11-30T08:00:00.000Z'), at('2026-11-30T08:00:00.001Z'), at('2026-11-30T15:29:59.999Z')]).toEqual([
      false,
      true,
      true,
    ]);
    expect(at('2026-11-30T15:30:00.000Z')).toBe(false);
  });

  it('rounds bounds below a millisecond inwards', () => {
    expect(
      compileReportFilter('GOAL', {
        goalRecordedAfter: '2026-11-30T10:00:00.0005Z',
        goalRecordedBefore: '2026-11-30T11:00:00.0005Z',
      }).range,
    ).toEqual({
      lower: { at: '2026-11-30T10:00:00.001Z', inclusive: true },
      upper: { at: '2026-11-30T11:00:00.000Z', inclusive: true },
    });
  });

  it('keeps nothing when the bounds cross', () => {
    expect(keeps('CHAT', { updatedAfter: LATER, updatedBefore: EARLIER }, [{ updatedAt: T }])).toEqual([false]);
  });
});

describe('compileReportFilter: text search', () => {
  it('matches a query of several words when every word matches some searched field', () => {
    expect(keeps('CHAT', { search: 'anna BERLIN' }, [{ chatId: 'chat-berlin', name: berlinChat.name }])).toEqual([
      true,
    ]);
    expect(keeps('CHAT', { search: 'anna sales' }, [{ chatId: 'chat-berlin', name: berlinChat.name }])).toEqual([
      false,
    ]);
    expect(keeps('CONTACT', { contactSearch: 'jones corp.io 9999' }, [bob, anna])).toEqual([true, false]);
  });

  it('never matches a phone field with a word that holds no digit', () => {
    const contact = { name: 'Zed', phone: '+49 151 2345' };

    expect(keeps('CONTACT', { contactSearch: '+' }, [contact])).toEqual([false]);
    expect(keeps('CONTACT', { contactSearch: 'zed +' }, [contact])).toEqual([false]);
    expect(keeps('CONTACT', { contactSearch: '+49-151' }, [contact])).toEqual([true]);
  });

  it('compares phone fields by their digits only', () => {
    expect(keeps('CONTACT', { contactSearch: '49151' }, [{ phone: '+49 (151) 2345' }])).toEqual([true]);
    expect(keeps('CONTACT', { contactSearch: '491512' }, [{ phone: '+49 151 1' }])).toEqual([false]);
  });

  it('treats a blank query as no filter', () => {
    expect(keeps('CHAT', { search: '   ' }, [{}])).toEqual([true]);
    expect(compileReportFilter('CHAT', { search: ' ' }).joins.contactsOfChat).toBe(false);
  });

  it.each([
    ['#123', true],
    ['123', true],
    ['#0123', true],
    ['#12', false],
    ['1234', false],
    ['#123 refund', true],
    ['#124', false],
  ])('matches ticket number 123 with the query %j: %s', (query, expected) => {
    expect(keeps('TICKET', { ticketSearch: query }, [{ number: 123, remarks: 'Refund please' }])).toEqual([expected]);
  });

  it('also finds a ticket number written in the remarks', () => {
    expect(keeps('TICKET', { ticketSearch: '#77' }, [{ number: 1, remarks: 'follows up on #77' }])).toEqual([true]);
  });
});

describe('compileReportFilter: rules', () => {
  const customFields = {
    tier: 'Gold',
    score: 42,
    since: '2024-05-01T10:00:00+02:00',
    birthday: '1990-05-01',
    vip: true,
    note: null,
    tags: ['a', 'b'],
  };

  it.each([
    ['eq', 'tier', 'gold', true],
    ['eq', 'tier', 'Silver', false],
    ['eq', 'score', 42, true],
    ['eq', 'score', 42.5, false],
    ['eq', 'score', '42', true],
    ['eq', 'since', '2024-05-01T08:00:00Z', true],
    ['eq', 'since', '2024-05-01T10:00:00Z', false],
    ['eq', 'vip', true, true],
    ['eq', 'note', null, true],
    ['eq', 'missing', 'x', false],
    ['neq', 'tier', 'silver', true],
    ['neq', 'tier', 'GOLD', false],
    ['neq', 'since', '2024-05-01T08:00:00.000Z', false],
    ['neq', 'missing', 'x', true],
    ['contains', 'tier', 'OL', true],
    ['contains', 'tier', 'x', false],
    ['contains', 'score', 4, true],
    ['contains', 'tags', '"b"', true],
    ['contains', 'missing', 'x', false],
    ['gt', 'score', 41, true],
    ['gt', 'score', 42, false],
    ['gte', 'score', 42, true],
    ['gte', 'score', 43, false],
    ['lt', 'score', 43, true],
    ['lt', 'score', 42, false],
    ['lte', 'score', 42, true],
    ['lte', 'score', 41, false],
    ['gt', 'score', '41', false],
    ['lt', 'score', '43', false],
    ['gt', 'tier', 'A', false],
    ['lt', 'tier', 'Z', false],
    ['gt', 'since', '2024-05-01T09:00:00Z', false],
    ['lt', 'since', '2024-05-01T09:00:00Z', true],
    ['gte', 'since', '2024-05-01T08:00:00Z', true],
    ['lt', 'birthday', '1990-05-01T00:00:01Z', true],
    ['gt', 'birthday', '1980-01-01', true],
    ['gt', 'missing', 1, false],
    ['gte', 'missing', 1, false],
    ['lt', 'missing', 1, false],
    ['lte', 'missing', 1, false],
    ['exists', 'tier', undefined, true],
    ['exists', 'note', undefined, true],
    ['exists', 'missing', undefined, false],
    ['notExists', 'missing', undefined, true],
    ['notExists', 'tier', undefined, false],
  ])('%s on %s with %j holds: %s', (operator, field, value, expected) => {
    const rules = JSON.stringify([{ field, operator, value }]);

    expect(keeps('CONTACT', { contactCustomFieldRules: rules }, [{ customFields }])).toEqual([expected]);
  });

  it('keeps a record only when all rules hold', () => {
    const rules = (score: number) =>
      JSON.stringify([
        { field: 'tier', operator: 'eq', value: 'gold' },
        { field: 'score', operator: 'gt', value: score },
      ]);

    expect(keeps('CONTACT', { contactCustomFieldRules: rules(40) }, [{ customFields }])).toEqual([true]);
    expect(keeps('CONTACT', { contactCustomFieldRules: rules(50) }, [{ customFields }])).toEqual([false]);
  });

  it('looks only at own top-level keys', () => {
    const rules = JSON.stringify([{ field: 'toString', operator: 'exists' }]);

    expect(keeps('CONTACT', { contactCustomFieldRules: rules }, [{ customFields: {} }])).toEqual([false]);
  });

  it('keeps everything with an empty rules array', () => {
    expect(keeps('GOAL', { goalTrackerValueRules: '[]' }, [{}])).toEqual([true]);
  });
});

describe('compileReportFilter: joins', () => {
  it.each<[ReportType, object, object]>([
    ['CHAT', { search: 'x' }, { contactsOfChat: true }],
    ['CHAT', { chatContactSearch: 'x' }, { contactsOfChat: true }],
    ['CHAT', { isArchived: true, labelIds: ['l1'] }, {}],
    ['CONTACT', { contactHasChats: false }, { chatsOfContact: true }],
    ['CONTACT', { contactSearch: '123' }, {}],
    ['TICKET', { ticketSearch: '#1' }, { chatById: true }],
    ['CALL_LOG', { callPhoneSearch: '49' }, { chatById: true }],
    ['CALL_LOG', { callContactSearch: 'x' }, { chatById: true, contactsOfChat: true }],
    ['CALL_LOG', { callHangupCauseSearch: 'x' }, {}],
  ])('%s %j needs %j', (type, filters, needed) => {
    expect(compileReportFilter(type, filters as never).joins).toEqual({
      chatById: false,
      contactsOfChat: false,
      chatsOfContact: false,
      ...needed,
    });
  });

  it('reads related records only through the join view', () => {
    expect(
      compileReportFilter('CALL_LOG', { callContactSearch: 'anna' }).keep(
        build('CALL_LOG', { chatId: 'chat-berlin' }),
        NO_JOINS,
      ),
    ).toBe(false);
    expect(joins.contactsOfChat(salesChat.chatId)).toEqual([bob]);
  });
});

describe('compareForReport', () => {
  it('orders newest first by time, ties by id descending in code-unit order', () => {
    const calls = [
      build('CALL_LOG', { callId: 'a', initiatedAt: T }),
      build('CALL_LOG', { callId: 'B', initiatedAt: T }),
      build('CALL_LOG', { callId: 'z', initiatedAt: EARLIER }),
      build('CALL_LOG', { callId: 'b', initiatedAt: T }),
      build('CALL_LOG', { callId: 'é', initiatedAt: LATER }),
      build('CALL_LOG', { callId: 'ab', initiatedAt: T }),
    ];

    const sorted = calls.sort((a, b) => compareForReport('CALL_LOG', a, b)).map((call) => recordId('CALL_LOG', call));

    expect(sorted).toEqual(['é', 'b', 'ab', 'a', 'B', 'z']);
  });

  it('orders CHAT records by updatedAt, not createdAt', () => {
    const older = build('CHAT', { chatId: 'c1', createdAt: LATER, updatedAt: EARLIER });
    const newer = build('CHAT', { chatId: 'c2', createdAt: EARLIER, updatedAt: T });

    expect([older, newer].sort((a, b) => compareForReport('CHAT', a, b))).toEqual([newer, older]);
  });
});
