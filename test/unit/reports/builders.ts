import { joinViewOf } from '#shared/domain/reports/filters';
import type { ContactRecord, RecordOf, ReportType } from '#shared/domain/reports/records';

/** A minimal valid record of each kind, with every optional field absent and every array empty. */
const BASE: { [T in ReportType]: RecordOf<T> } = {
  CHAT: {
    chatId: 'chat-0',
    name: 'Plain chat',
    chatType: 'INDIVIDUAL',
    channelId: 'ch-1',
    isArchived: false,
    isResolved: false,
    isHighPriority: false,
    autopilot: false,
    assignedUserIds: [],
    assignedTeamIds: [],
    contactIds: [],
    stateMachineIds: [],
    currentStateIds: [],
    labelIds: [],
    externalItems: [],
    createdAt: '2026-11-01T00:00:00.000Z',
    updatedAt: '2026-11-15T12:00:00.000Z',
  },
  CONTACT: {
    contactId: 'c-0',
    name: 'Zed',
    channelIds: [],
    customFields: {},
    createdAt: '2026-11-15T12:00:00.000Z',
  },
  TICKET: {
    ticketId: 't-0',
    number: 1,
    isResolved: false,
    priority: 'LOW',
    assignedUserIds: [],
    issueNames: [],
    createdAt: '2026-11-15T12:00:00.000Z',
  },
  CALL_LOG: {
    callId: 'call-0',
    direction: 'INBOUND',
    status: 'COMPLETED',
    callerNumber: '+44 20 7946 0000',
    calledNumber: '+44 20 7946 0001',
    talkDurationSeconds: 0,
    initiatedAt: '2026-11-15T12:00:00.000Z',
  },
  GOAL: { goalEventId: 'ge-0', goalId: 'g-0', trackerValues: {}, recordedAt: '2026-11-15T12:00:00.000Z' },
  BOOKING: {
    bookingId: 'b-0',
    type: 'ONLINE',
    status: 'SCHEDULED',
    startsAt: '2026-11-15T12:00:00.000Z',
    endsAt: '2026-11-15T13:00:00.000Z',
  },
  FOLLOW_UPS: { followUpId: 'f-0', kind: 'CHAT', status: 'PENDING', dueAt: '2026-11-15T12:00:00.000Z' },
  SURVEY_RESPONSES: {
    responseId: 's-0',
    surveyFormId: 'form-0',
    status: 'COMPLETED',
    source: 'INVITE',
    answers: {},
    startedAt: '2026-11-15T12:00:00.000Z',
  },
  FLOW_RESPONSES: {
    responseId: 'r-0',
    flowId: 'flow-0',
    source: 'journey',
    response: {},
    respondedAt: '2026-11-15T12:00:00.000Z',
  },
};

export const build = <T extends ReportType>(type: T, overrides: Partial<RecordOf<T>> = {}): RecordOf<T> => ({
  ...BASE[type],
  ...overrides,
});

export const anna: ContactRecord = {
  ...build('CONTACT'),
  contactId: 'c-anna',
  name: 'Anna Schmidt',
  phone: '+49 151 2345 678',
  email: 'anna@example.com',
};
export const bob: ContactRecord = {
  ...build('CONTACT'),
  contactId: 'c-bob',
  name: 'Bob Jones',
  phone: '+1 (555) 010-9999',
  email: 'bob@corp.io',
};
export const berlinChat = build('CHAT', {
  chatId: 'chat-berlin',
  name: 'Support Berlin',
  externalChatId: '4930123456',
  contactIds: ['c-anna'],
});
export const salesChat = build('CHAT', {
  chatId: 'chat-sales',
  name: 'Sales',
  externalChatId: '120363000000000001@g.us',
  contactIds: ['c-bob'],
});

/** Two chats, each with one contact; contact `c-0` is in no chat. */
export const joins = joinViewOf([berlinChat, salesChat], [anna, bob, build('CONTACT')]);
