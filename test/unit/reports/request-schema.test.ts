import { describe, expect, it } from 'vitest';
import { REPORT_TYPES } from '#shared/domain/reports/records';
import { ValidationError } from '#shared/errors';
import { parseOrThrow } from '#shared/http/validation';
import { normaliseReportFilters, parseRules, ReportRequestBody, reportRequestOf } from '#shared/schemas/reports';

const parse = (body: unknown) => parseOrThrow(ReportRequestBody, body, '');

function errorsOf(body: unknown) {
  try {
    parse(body);
  } catch (error) {
    if (error instanceof ValidationError) return error.errors;
    throw error;
  }
  return [];
}

const pointersOf = (body: unknown) => errorsOf(body)?.map((error) => error.pointer);
const ids = (count: number) => Array.from({ length: count }, (_, index) => `id-${index}`);
const rule = (index: number) => ({ field: `f${index}`, operator: 'eq', value: index });

const FULL = {
  CHAT: {
    isArchived: false,
    isResolved: true,
    isHighPriority: true,
    isBotHandled: false,
    isUnanswered: true,
    isAssigned: true,
    hasActiveAgentTransfer: false,
    hasClosedBotSession: false,
    assignedToUserIds: ['u1'],
    assignedToTeamIds: ['t1'],
    hasPrimaryAssignee: true,
    hasNoPrimaryAssignee: false,
    hasContacts: true,
    chatContactSearch: 'anna',
    stateMachineIds: ['sm1'],
    currentStateIds: ['s1'],
    hasStateMachines: true,
    search: 'berlin order',
    chatType: 'GROUP',
    channelIds: ['ch-1'],
    updatedAfter: '2026-11-01',
    updatedBefore: '2026-11-30T10:00:00+02:00',
    labelIds: ['l1'],
    hasLabels: true,
    allLabelIds: ['l1', 'l2'],
  },
  CONTACT: {
    contactSearch: 'anna',
    contactChannelIds: ['ch-1'],
    contactHasChats: true,
    contactCreatedAfter: '2026-11-01T00:00:00Z',
    contactCreatedBefore: '2026-11-30',
    contactCreatedByUserIds: ['u1'],
    contactCustomFieldRules: '[{"field":"tier","operator":"eq","value":"gold"}]',
  },
  TICKET: {
    ticketIsResolved: false,
    ticketPriorityLevels: ['HIGH', 'URGENT'],
    ticketAssignedToUserIds: ['u1'],
    ticketCreatedByUserIds: ['u2'],
    ticketMachineIds: ['tm1'],
    ticketCreatedAfter: '2026-11-01',
    ticketCreatedBefore: '2026-11-30',
    ticketSearch: '#123',
  },
  CALL_LOG: {
    callDirection: 'INBOUND',
    callStatuses: ['MISSED', 'NO_ANSWER'],
    callAgentUserIds: ['u1'],
    callAccountId: 'acc-1',
    callInitiatedAfter: '2026-11-01',
    callInitiatedBefore: '2026-11-30',
    callPhoneSearch: '+49 151',
    callHasChat: true,
    callHasRecording: false,
    callMinDurationSeconds: 0,
    callMaxDurationSeconds: 90.5,
    callHangupCauseSearch: 'busy',
    callContactSearch: 'anna',
  },
  GOAL: {
    goalRecordedAfter: '2026-11-01',
    goalRecordedBefore: '2026-11-30',
    goalIds: ['g1'],
    goalChannelIds: ['ch-1'],
    goalTrackerValueRules: '[{"field":"amount","operator":"gte","value":100},{"field":"x","operator":"exists"}]',
  },
  BOOKING: {
    bookingTypes: ['ONLINE'],
    bookingStatuses: ['CONFIRMED'],
    bookingAgentUserIds: ['u1'],
    bookingContactId: 'c1',
    bookingStartsOnOrAfter: '2026-11-01',
    bookingStartsOnOrBefore: '2026-11-30',
  },
  FOLLOW_UPS: {
    followUpAgentUserIds: ['u1'],
    followUpStatuses: ['DUE'],
    followUpKind: 'CALL',
    followUpDueOnOrAfter: '2026-11-01',
    followUpDueOnOrBefore: '2026-11-30',
  },
  SURVEY_RESPONSES: {
    surveyFormIds: ['form-1'],
    surveyStatuses: ['COMPLETED'],
    surveySources: ['API'],
    surveyStartedOnOrAfter: '2026-11-01',
    surveyStartedOnOrBefore: '2026-11-30',
    surveyChannel: 'WHATSAPP',
  },
  FLOW_RESPONSES: {
    flowIds: ['flow-1'],
    flowSources: ['chat_template'],
    flowRespondedOnOrAfter: '2026-11-01',
    flowRespondedOnOrBefore: '2026-11-30',
  },
};

describe('ReportRequestBody', () => {
  it.each(REPORT_TYPES)('accepts %s with no filters and with every filter of the type', (reportType) => {
    expect(errorsOf({ reportType })).toEqual([]);
    expect(errorsOf({ reportType, ...FULL[reportType] })).toEqual([]);
  });

  it.each<[object, string]>([
    [{}, 'undefined'],
    [{ reportType: 'chat' }, 'lower case'],
    [{ reportType: 'INVOICE' }, 'unknown'],
    [{ reportType: 7 }, 'not a string'],
  ])('refuses %j (reportType %s) at /reportType', (body) => {
    expect(errorsOf(body)).toEqual([
      { pointer: '/reportType', message: expect.stringContaining('must be one of CHAT') },
    ]);
  });

  it('refuses a body that is not an object', () => {
    expect(pointersOf(null)).toEqual(['']);
  });

  it.each(REPORT_TYPES)('refuses on a %s report each filter of the other types, at its pointer', (reportType) => {
    const foreign = REPORT_TYPES.filter((other) => other !== reportType).flatMap((other) =>
      Object.entries(FULL[other]),
    );

    for (const [name, value] of foreign) {
      expect(errorsOf({ reportType, [name]: value })).toEqual([{ pointer: `/${name}`, message: 'unknown property' }]);
    }
  });

  it('refuses an unknown property at its pointer', () => {
    expect(errorsOf({ reportType: 'CHAT', organisationId: 'x' })).toEqual([
      { pointer: '/organisationId', message: 'unknown property' },
    ]);
    expect(errorsOf({ reportType: 'CHAT', 'a/b': 1 })).toEqual([{ pointer: '/a~1b', message: 'unknown property' }]);
  });

  it('accepts arrays of 100 strings and refuses 101 (C-2)', () => {
    expect(errorsOf({ reportType: 'CHAT', labelIds: ids(100) })).toEqual([]);
    expect(errorsOf({ reportType: 'CHAT', labelIds: ids(101) })).toEqual([
      { pointer: '/labelIds', message: 'must hold at most 100 entries' },
    ]);
    expect(pointersOf({ reportType: 'TICKET', ticketPriorityLevels: Array(101).fill('LOW') })).toEqual([
      '/ticketPriorityLevels',
    ]);
  });

  it('accepts strings of 256 characters (code points) and refuses 257', () => {
    expect(errorsOf({ reportType: 'CHAT', search: 'x'.repeat(256) })).toEqual([]);
    expect(errorsOf({ reportType: 'CHAT', search: '😀'.repeat(256) })).toEqual([]);
    expect(errorsOf({ reportType: 'CHAT', search: 'x'.repeat(257) })).toEqual([
      { pointer: '/search', message: 'must be at most 256 characters' },
    ]);
    expect(pointersOf({ reportType: 'CHAT', labelIds: ['ok', 'x'.repeat(257)] })).toEqual(['/labelIds/1']);
    expect(pointersOf({ reportType: 'CALL_LOG', callAccountId: 'x'.repeat(257) })).toEqual(['/callAccountId']);
  });

  it.each([
    [{ reportType: 'CHAT', labelIds: ['l1', ''] }, '/labelIds/1'],
    [{ reportType: 'CHAT', labelIds: 'l1' }, '/labelIds'],
    [{ reportType: 'CHAT', labelIds: [1] }, '/labelIds/0'],
    [{ reportType: 'CHAT', isResolved: 'false' }, '/isResolved'],
    [{ reportType: 'CHAT', chatType: 'group' }, '/chatType'],
    [{ reportType: 'TICKET', ticketPriorityLevels: ['HIGH', 'CRITICAL'] }, '/ticketPriorityLevels/1'],
    [{ reportType: 'CALL_LOG', callStatuses: ['missed'] }, '/callStatuses/0'],
    [{ reportType: 'CALL_LOG', callDirection: 'SIDEWAYS' }, '/callDirection'],
    [{ reportType: 'BOOKING', bookingTypes: ['ONLINE', 'VISIT'] }, '/bookingTypes/1'],
    [{ reportType: 'BOOKING', bookingStatuses: ['DONE'] }, '/bookingStatuses/0'],
    [{ reportType: 'BOOKING', bookingContactId: '' }, '/bookingContactId'],
    [{ reportType: 'FOLLOW_UPS', followUpStatuses: ['OPEN'] }, '/followUpStatuses/0'],
    [{ reportType: 'FOLLOW_UPS', followUpKind: 'EMAIL' }, '/followUpKind'],
    [{ reportType: 'SURVEY_RESPONSES', surveyStatuses: ['DONE'] }, '/surveyStatuses/0'],
    [{ reportType: 'SURVEY_RESPONSES', surveySources: ['invite'] }, '/surveySources/0'],
    [{ reportType: 'FLOW_RESPONSES', flowSources: ['JOURNEY'] }, '/flowSources/0'],
    [{ reportType: 'CALL_LOG', callMinDurationSeconds: -1 }, '/callMinDurationSeconds'],
    [{ reportType: 'CALL_LOG', callMaxDurationSeconds: '60' }, '/callMaxDurationSeconds'],
    [{ reportType: 'CALL_LOG', callPhoneSearch: 'anna' }, '/callPhoneSearch'],
    [{ reportType: 'CALL_LOG', callPhoneSearch: '+' }, '/callPhoneSearch'],
  ])('refuses %j at %s', (body, pointer) => {
    expect(pointersOf(body)).toEqual([pointer]);
  });

  it.each([
    '2026-11-30',
    '2026-11-30T10:00:00Z',
    '2026-11-30T10:00:00.123456Z',
    '2026-11-30t10:00:00z',
    '2026-11-30T10:00:00+02:00',
    '2026-11-30T10:00:00-00:00',
    '2024-02-29',
  ])('accepts the date %j', (date) => {
    expect(errorsOf({ reportType: 'BOOKING', bookingStartsOnOrBefore: date })).toEqual([]);
  });

  it.each([
    '2026-11-30T10:00:00',
    '2026-11-30 10:00:00Z',
    '2026-11-30T10:00Z',
    '2026-11-30T10:00:00+0200',
    '2026-11-30T10:00:00+24:00',
    '2026-11-30T24:00:00Z',
    '2026-11-30T23:59:60Z',
    '2026-02-30',
    '2023-02-29',
    '2026-13-01',
    '2026-11-3',
    '30.11.2026',
    'Mon, 30 Nov 2026 10:00:00 GMT',
    '1764496800000',
    'today',
    '',
  ])('refuses the date %j at its pointer', (date) => {
    expect(errorsOf({ reportType: 'CHAT', updatedAfter: date })).toEqual([
      { pointer: '/updatedAfter', message: expect.stringContaining('RFC 3339') },
    ]);
  });
});

describe('rules filters', () => {
  const errorsOfRules = (rules: string) => errorsOf({ reportType: 'CONTACT', contactCustomFieldRules: rules });

  it.each([
    ['malformed JSON', '[{"field":"a",', 'malformed'],
    ['not JSON at all', 'tier = gold', 'malformed'],
    ['not an array', '{"field":"a","operator":"exists"}', 'rules: must be a JSON array'],
    ['more than 20 rules', JSON.stringify(Array.from({ length: 21 }, (_, i) => rule(i))), 'at most 20 rules'],
    ['a rule that is not an object', '["tier"]', 'rules/0'],
    ['a missing field', '[{"operator":"eq","value":1}]', 'rules/0/field: is required'],
    ['a missing operator', '[{"field":"a","value":1}]', 'rules/0/operator: is required'],
    ['a missing value for eq', '[{"field":"a","operator":"eq"}]', 'rules/0/value: is required unless'],
    ['a missing value for gt', '[{"field":"a","operator":"exists"},{"field":"a","operator":"gt"}]', 'rules/1/value'],
    ['an unknown operator', '[{"field":"a","operator":"like","value":"x"}]', 'rules/0/operator: must be one of eq'],
    ['an unknown key', '[{"field":"a","operator":"eq","value":1,"op":"x"}]', 'rules/0/op: unknown property'],
    ['an empty field', '[{"field":"","operator":"exists"}]', 'rules/0/field: must not be empty'],
    ['an object value', '[{"field":"a","operator":"eq","value":{"b":1}}]', 'rules/0/value'],
    ['a value over 256 characters', JSON.stringify([{ field: 'a', operator: 'eq', value: 'x'.repeat(257) }]), 'value'],
  ])('refuses %s at the filter pointer', (_, rules, message) => {
    expect(errorsOfRules(rules)).toEqual([
      { pointer: '/contactCustomFieldRules', message: expect.stringContaining(message) },
    ]);
  });

  it('reports the same problems for goalTrackerValueRules', () => {
    expect(pointersOf({ reportType: 'GOAL', goalTrackerValueRules: '[{"field":"a"}]' })).toEqual([
      '/goalTrackerValueRules',
    ]);
  });

  it('accepts 20 rules, absent values for exists and notExists, and scalar values', () => {
    const rules = [
      ...Array.from({ length: 17 }, (_, i) => rule(i)),
      { field: 'a', operator: 'exists' },
      { field: 'b', operator: 'notExists' },
      { field: 'c', operator: 'neq', value: null },
    ];

    expect(errorsOfRules(JSON.stringify(rules))).toEqual([]);
    expect(errorsOfRules('[]')).toEqual([]);
  });

  it('parses rules into field, operator and value', () => {
    expect(parseRules('[{"value":"x","operator":"contains","field":"note"}]')).toEqual({
      ok: true,
      rules: [{ field: 'note', operator: 'contains', value: 'x' }],
    });
  });
});

describe('normaliseReportFilters', () => {
  it('includes isResolved: false for a CHAT report that omits it', () => {
    expect(normaliseReportFilters(parse({ reportType: 'CHAT' }))).toEqual({ isResolved: false });
  });

  it('drops empty arrays and keeps every other filter, dates as sent', () => {
    const body = parse({
      reportType: 'CHAT',
      labelIds: [],
      channelIds: ['ch-1'],
      isResolved: true,
      updatedAfter: '2026-11-30T10:00:00+02:00',
      updatedBefore: '2026-12-01',
      search: '',
    });

    expect(normaliseReportFilters(body)).toEqual({
      isResolved: true,
      channelIds: ['ch-1'],
      updatedAfter: '2026-11-30T10:00:00+02:00',
      updatedBefore: '2026-12-01',
      search: '',
    });
  });

  it('stores filters that validate again unchanged, so a caller can resubmit them', () => {
    for (const reportType of REPORT_TYPES) {
      const stored = normaliseReportFilters(parse({ reportType, ...FULL[reportType] }));

      expect(normaliseReportFilters(parse({ reportType, ...stored }))).toEqual(stored);
    }
  });

  it('has nothing to store for a type without defaults and no filters', () => {
    expect(normaliseReportFilters(parse({ reportType: 'GOAL', goalIds: [] }))).toEqual({});
  });
});

describe('ReportRequestBody format and compression (CONTRACT §23)', () => {
  it.each(REPORT_TYPES)('takes a format and a compression beside the filters of %s', (reportType) => {
    const body = parse({ reportType, format: 'xlsx', compression: 'gzip' });

    expect(reportRequestOf(body)).toEqual({
      reportType,
      filters: reportType === 'CHAT' ? { isResolved: false } : {},
      format: 'xlsx',
      compression: 'gzip',
    });
  });

  it('leaves both out when not given, for the use case to default them (csv, none)', () => {
    expect(reportRequestOf(parse({ reportType: 'GOAL' }))).toEqual({ reportType: 'GOAL', filters: {} });
  });

  it('refuses an unknown format or compression at its pointer', () => {
    expect(pointersOf({ reportType: 'GOAL', format: 'pdf', compression: 'zip' })).toEqual(['/format', '/compression']);
    expect(pointersOf({ reportType: 'GOAL', format: 'XLSX' })).toEqual(['/format']);
  });
});
