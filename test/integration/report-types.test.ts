import { describe, expect, it } from 'vitest';
import { deps } from '#shared/config/deps';
import { importRecords } from '#shared/domain/crm/import-records';
import { createCredential, createOrg } from '#shared/domain/orgs/administer';
import { csvHeader, csvRow } from '#shared/domain/reports/csv';
import { type ReportCompression, type ReportFormat, reportMediaType } from '#shared/domain/reports/formats';
import { RECORD_KINDS, type ReportType } from '#shared/domain/reports/records';
import { columnWidths, XLSX_MAX_CELL_CHARS, XLSX_TRUNCATION_MARK } from '#shared/domain/reports/xlsx';
import { openApiDocument } from '#shared/openapi/document';
import { eventually, useLocalStack } from '#test/support/local-stack';
import { OpenApiValidator } from '#test/support/openapi-validator';
import { useReceiver } from '#test/support/receiver';
import {
  csvTextOf,
  decompressed,
  expectedCellType,
  parseCsv,
  readXlsx,
  readXlsxSheetParts,
} from '#test/support/report-files';

type Row = Record<string, unknown>;

interface ReportCase {
  name: string;
  /** Import batches, in order: a later batch replaces records of the same id. */
  imports: Row[][];
  body: { reportType: string } & Row;
  /** The report record's `filters` when they differ from the body's filters (defaults). */
  storedFilters?: Row;
  /** The file's rows, header first, each written out as it must appear between CRLFs. */
  rows: string[];
}

/** The report record as `POST` and `GET /reports/:orgId/:reportId` return it (CONTRACT §6). */
interface ReportView {
  reportId: string;
  reportType: string;
  status: string;
  filters: Row;
  format: string;
  rowCount?: number;
  sizeBytes?: number;
  truncatedCells?: number;
  expiresAt?: string;
}

const csv = (rows: string[]) => rows.map((row) => `${row}\r\n`).join('');

const chat = (fields: Row): Row => ({
  recordType: 'CHAT',
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
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
  ...fields,
});

const CHAT_HEADER =
  'chatId,name,chatType,channelId,externalChatId,isArchived,isResolved,isHighPriority,autopilot,botJourneyStatus,' +
  'lastMessageFrom,assignedUserIds,assignedTeamIds,primaryAssigneeUserId,contactIds,stateMachineIds,currentStateIds,' +
  'labelIds,externalItems,createdAt,updatedAt';

const CASES: ReportCase[] = [
  {
    name: 'CHAT keeps open, unarchived chats updated strictly after an offset cut-off, ties by id in code-unit order',
    imports: [
      [
        chat({
          chatId: 'chat-newest',
          name: 'Two\nlines',
          autopilot: true,
          botJourneyStatus: 'ACTIVE',
          lastMessageFrom: 'BOT',
          assignedTeamIds: ['team-1'],
          createdAt: '2026-03-05T12:00:00Z',
          updatedAt: '2026-03-05T12:30:00.5Z',
        }),
        chat({
          chatId: 'chat-a',
          name: 'Müller, "Hans" GmbH',
          externalChatId: '+4915112345678',
          isHighPriority: true,
          botJourneyStatus: 'AGENT_TRANSFERRED',
          lastMessageFrom: 'GUEST',
          assignedUserIds: ['u-2', 'u-1'],
          contactIds: ['ct-1'],
          stateMachineIds: ['sm-1'],
          currentStateIds: ['st-1'],
          labelIds: ['vip', 'lead'],
          externalItems: ['=HYPERLINK("http://x")', 'order 7'],
          createdAt: '2026-02-01T09:00:00Z',
          updatedAt: '2026-03-01T10:00:00+02:00',
        }),
        chat({
          chatId: 'chat-B',
          name: '@here team',
          chatType: 'GROUP',
          channelId: 'ch-2',
          primaryAssigneeUserId: 'u-9',
          createdAt: '2026-03-01T08:00:00Z',
          updatedAt: '2026-03-01T08:00:00Z',
        }),
        chat({ chatId: 'chat-resolved', name: 'Done', isResolved: true, updatedAt: '2026-03-06T00:00:00Z' }),
        chat({ chatId: 'chat-archived', name: 'Old', isArchived: true, updatedAt: '2026-03-04T00:00:00Z' }),
        chat({ chatId: 'chat-edge', name: 'At the cut-off', updatedAt: '2026-03-01T00:00:00Z' }),
      ],
    ],
    body: { reportType: 'CHAT', isArchived: false, updatedAfter: '2026-03-01T01:00:00+01:00' },
    storedFilters: { isArchived: false, isResolved: false, updatedAfter: '2026-03-01T01:00:00+01:00' },
    rows: [
      CHAT_HEADER,
      'chat-newest,"Two\nlines",INDIVIDUAL,ch-1,,false,false,false,true,ACTIVE,BOT,,team-1,,,,,,,' +
        '2026-03-05T12:00:00.000Z,2026-03-05T12:30:00.500Z',
      'chat-a,"Müller, ""Hans"" GmbH",INDIVIDUAL,ch-1,+4915112345678,false,false,true,false,AGENT_TRANSFERRED,GUEST,' +
        'u-2;u-1,,,ct-1,sm-1,st-1,vip;lead,"\'=HYPERLINK(""http://x"");order 7",' +
        '2026-02-01T09:00:00.000Z,2026-03-01T08:00:00.000Z',
      "chat-B,'@here team,GROUP,ch-2,,false,false,false,false,,,,,u-9,,,,,,2026-03-01T08:00:00.000Z,2026-03-01T08:00:00.000Z",
    ],
  },
  {
    name: 'CONTACT keeps contacts a chat still lists after a re-import, created after a date, passing every custom-field rule',
    imports: [
      [
        chat({ chatId: 'chat-x', name: 'X', contactIds: ['ct-1', 'ct-2', 'ct-3'] }),
        chat({ chatId: 'chat-y', name: 'Y', contactIds: ['ct-4', 'ct-5', 'ct-6'] }),
        {
          recordType: 'CONTACT',
          contactId: 'ct-1',
          name: `Ann "Annie" O'Neil, PhD`,
          phone: '+4915112345678',
          email: 'ann@example.com',
          channelIds: ['ch-1', 'ch-2'],
          createdByUserId: 'u-1',
          customFields: { zeta: { b: 1, a: 2 }, tier: 'gold', score: 42, alpha: true },
          createdAt: '2026-04-02T08:15:00-05:00',
        },
        {
          recordType: 'CONTACT',
          contactId: 'ct-2',
          name: '=1+2',
          phone: '-49 30 1234',
          channelIds: [],
          customFields: { score: 10 },
          createdAt: '2026-04-01T00:00:00.001Z',
        },
        {
          recordType: 'CONTACT',
          contactId: 'ct-3',
          name: 'Bronze buyer',
          channelIds: [],
          customFields: { score: 99, tier: 'bronze' },
          createdAt: '2026-04-03T00:00:00Z',
        },
        {
          recordType: 'CONTACT',
          contactId: 'ct-4',
          name: 'Left chat-y',
          channelIds: [],
          customFields: { score: 50 },
          createdAt: '2026-04-04T00:00:00Z',
        },
        {
          recordType: 'CONTACT',
          contactId: 'ct-5',
          name: 'Score as text',
          channelIds: [],
          customFields: { score: '50' },
          createdAt: '2026-04-05T00:00:00Z',
        },
        {
          recordType: 'CONTACT',
          contactId: 'ct-6',
          name: 'Too early',
          channelIds: [],
          customFields: { score: 60 },
          createdAt: '2026-03-31T23:59:59Z',
        },
      ],
      [chat({ chatId: 'chat-y', name: 'Y', contactIds: ['ct-5', 'ct-6', 'ct-gone'] })],
    ],
    body: {
      reportType: 'CONTACT',
      contactHasChats: true,
      contactCreatedAfter: '2026-04-01',
      contactCustomFieldRules: JSON.stringify([
        { field: 'score', operator: 'gte', value: 10 },
        { field: 'tier', operator: 'neq', value: 'BRONZE' },
      ]),
    },
    rows: [
      'contactId,name,phone,email,channelIds,createdByUserId,customFields,createdAt',
      `ct-1,"Ann ""Annie"" O'Neil, PhD",+4915112345678,ann@example.com,ch-1;ch-2,u-1,` +
        '"{""alpha"":true,""score"":42,""tier"":""gold"",""zeta"":{""a"":2,""b"":1}}",2026-04-02T13:15:00.000Z',
      `ct-2,'=1+2,'-49 30 1234,,,,"{""score"":10}",2026-04-01T00:00:00.001Z`,
    ],
  },
  {
    name: 'TICKET finds #123 by number, remarks or linked chat name among open tickets created before an offset time',
    imports: [
      [
        chat({ chatId: 'chat-t', name: 'Order #123 complaint' }),
        {
          recordType: 'TICKET',
          ticketId: 't-1',
          number: 123,
          isResolved: false,
          priority: 'HIGH',
          assignedUserIds: ['u-1'],
          createdByUserId: 'u-2',
          ticketMachineId: 'tm-1',
          remarks: 'line 1\r\nline 2',
          issueNames: ['+1 upsell', 'Refund'],
          createdAt: '2026-05-01T09:00:00Z',
        },
        {
          recordType: 'TICKET',
          ticketId: 't-2',
          number: 1234,
          isResolved: false,
          priority: 'HIGH',
          assignedUserIds: [],
          remarks: 'ticket 1234',
          issueNames: [],
          createdAt: '2026-05-02T00:00:00Z',
        },
        {
          recordType: 'TICKET',
          ticketId: 't-3',
          number: 7,
          isResolved: false,
          priority: 'LOW',
          assignedUserIds: [],
          remarks: 'duplicate of #123',
          issueNames: [],
          createdAt: '2026-05-03T00:00:00Z',
        },
        {
          recordType: 'TICKET',
          ticketId: 't-4',
          number: 8,
          isResolved: false,
          priority: 'URGENT',
          assignedUserIds: ['u-3', 'u-1'],
          chatId: 'chat-t',
          issueNames: ['Late delivery'],
          createdAt: '2026-05-09T21:59:59.999Z',
        },
        {
          recordType: 'TICKET',
          ticketId: 't-5',
          number: 123,
          isResolved: true,
          priority: 'MEDIUM',
          assignedUserIds: [],
          issueNames: [],
          createdAt: '2026-05-04T00:00:00Z',
        },
        {
          recordType: 'TICKET',
          ticketId: 't-6',
          number: 123,
          isResolved: false,
          priority: 'MEDIUM',
          assignedUserIds: [],
          issueNames: [],
          createdAt: '2026-05-09T22:00:00Z',
        },
      ],
    ],
    body: {
      reportType: 'TICKET',
      ticketSearch: '#123',
      ticketIsResolved: false,
      ticketCreatedBefore: '2026-05-10T00:00:00+02:00',
    },
    rows: [
      'ticketId,number,isResolved,priority,assignedUserIds,createdByUserId,ticketMachineId,chatId,remarks,issueNames,createdAt',
      't-4,8,false,URGENT,u-3;u-1,,,chat-t,,Late delivery,2026-05-09T21:59:59.999Z',
      't-3,7,false,LOW,,,,,duplicate of #123,,2026-05-03T00:00:00.000Z',
      `t-1,123,false,HIGH,u-1,u-2,tm-1,,"line 1\r\nline 2",'+1 upsell;Refund,2026-05-01T09:00:00.000Z`,
    ],
  },
  {
    name: 'CALL_LOG matches the digits of a phone search in either number or the linked chat, by status and date',
    imports: [
      [
        chat({ chatId: 'chat-call', name: 'Caller chat', externalChatId: '4915112399999' }),
        {
          recordType: 'CALL_LOG',
          callId: 'call-1',
          direction: 'INBOUND',
          status: 'COMPLETED',
          agentUserId: 'u-1',
          callingAccountId: 'acc-1',
          callerNumber: '+49 151 1234 5678',
          calledNumber: '+4930123456',
          recordingUrl: 'https://rec.example/1.mp3',
          talkDurationSeconds: 125,
          hangupCause: '@carrier: busy, retry',
          initiatedAt: '2026-06-02T10:00:00+02:00',
        },
        {
          recordType: 'CALL_LOG',
          callId: 'call-2',
          direction: 'OUTBOUND',
          status: 'MISSED',
          callerNumber: '+441234567890',
          calledNumber: '+441234567891',
          chatId: 'chat-call',
          talkDurationSeconds: 0,
          initiatedAt: '2026-06-03T00:00:00Z',
        },
        {
          recordType: 'CALL_LOG',
          callId: 'call-3',
          direction: 'INBOUND',
          status: 'BUSY',
          callerNumber: '+4915112300000',
          calledNumber: '+4930123456',
          talkDurationSeconds: 0,
          initiatedAt: '2026-06-04T00:00:00Z',
        },
        {
          recordType: 'CALL_LOG',
          callId: 'call-4',
          direction: 'INBOUND',
          status: 'COMPLETED',
          callerNumber: '+4930999',
          calledNumber: '+4930888',
          talkDurationSeconds: 30,
          initiatedAt: '2026-06-05T00:00:00Z',
        },
        {
          recordType: 'CALL_LOG',
          callId: 'call-5',
          direction: 'INBOUND',
          status: 'COMPLETED',
          callerNumber: '+4915112345678',
          calledNumber: '+4930123456',
          talkDurationSeconds: 30,
          initiatedAt: '2026-06-01T00:00:00Z',
        },
      ],
    ],
    body: {
      reportType: 'CALL_LOG',
      callPhoneSearch: '+49 (151) 123',
      callStatuses: ['COMPLETED', 'MISSED'],
      callInitiatedAfter: '2026-06-01',
    },
    rows: [
      'callId,direction,status,agentUserId,callingAccountId,callerNumber,calledNumber,chatId,recordingUrl,' +
        'talkDurationSeconds,hangupCause,initiatedAt',
      'call-2,OUTBOUND,MISSED,,,+441234567890,+441234567891,chat-call,,0,,2026-06-03T00:00:00.000Z',
      `call-1,INBOUND,COMPLETED,u-1,acc-1,'+49 151 1234 5678,+4930123456,,https://rec.example/1.mp3,125,` +
        `"'@carrier: busy, retry",2026-06-02T08:00:00.000Z`,
    ],
  },
  {
    name: 'GOAL keeps events of the listed goals recorded before a date whose tracker values pass every rule',
    imports: [
      [
        {
          recordType: 'GOAL',
          goalEventId: 'ge-1',
          goalId: 'g-sale',
          channelId: 'ch-1',
          trackerValues: {
            items: [{ sku: 'b', qty: 1 }],
            currency: 'EUR',
            closedAt: '2026-07-15T10:00:00+02:00',
            amount: 250.5,
          },
          recordedAt: '2026-07-15T08:00:00Z',
        },
        {
          recordType: 'GOAL',
          goalEventId: 'ge-2',
          goalId: 'g-lead',
          chatId: 'chat-1',
          trackerValues: { closedAt: '2026-08-01T00:00:00Z', amount: 101 },
          recordedAt: '2026-07-31T23:59:59.999Z',
        },
        {
          recordType: 'GOAL',
          goalEventId: 'ge-3',
          goalId: 'g-sale',
          trackerValues: { amount: 100, closedAt: '2026-07-10T00:00:00Z' },
          recordedAt: '2026-07-10T00:00:00Z',
        },
        {
          recordType: 'GOAL',
          goalEventId: 'ge-4',
          goalId: 'g-sale',
          trackerValues: { amount: 300, closedAt: '2026-07-11T00:00:00Z', coupon: 'SUMMER' },
          recordedAt: '2026-07-11T00:00:00Z',
        },
        {
          recordType: 'GOAL',
          goalEventId: 'ge-5',
          goalId: 'g-other',
          trackerValues: { amount: 999, closedAt: '2026-07-12T00:00:00Z' },
          recordedAt: '2026-07-12T00:00:00Z',
        },
        {
          recordType: 'GOAL',
          goalEventId: 'ge-6',
          goalId: 'g-sale',
          trackerValues: { amount: 200, closedAt: '2026-07-20T00:00:00Z' },
          recordedAt: '2026-08-01T00:00:00Z',
        },
      ],
    ],
    body: {
      reportType: 'GOAL',
      goalIds: ['g-sale', 'g-lead'],
      goalRecordedBefore: '2026-08-01',
      goalTrackerValueRules: JSON.stringify([
        { field: 'amount', operator: 'gt', value: 100 },
        { field: 'closedAt', operator: 'lte', value: '2026-07-31T23:00:00-01:00' },
        { field: 'coupon', operator: 'notExists' },
      ]),
    },
    rows: [
      'goalEventId,goalId,channelId,chatId,trackerValues,recordedAt',
      'ge-2,g-lead,,chat-1,"{""amount"":101,""closedAt"":""2026-08-01T00:00:00Z""}",2026-07-31T23:59:59.999Z',
      'ge-1,g-sale,ch-1,,"{""amount"":250.5,""closedAt"":""2026-07-15T10:00:00+02:00"",""currency"":""EUR"",' +
        '""items"":[{""qty"":1,""sku"":""b""}]}",2026-07-15T08:00:00.000Z',
    ],
  },
  {
    name: 'BOOKING keeps bookings of the listed types and statuses starting within whole days, both ends inclusive',
    imports: [
      [
        {
          recordType: 'BOOKING',
          bookingId: 'b-1',
          type: 'ONLINE',
          status: 'SCHEDULED',
          agentUserId: 'u-1',
          startsAt: '2026-09-30T23:59:59.999Z',
          endsAt: '2026-10-01T00:30:00Z',
        },
        {
          recordType: 'BOOKING',
          bookingId: 'b-2',
          type: 'OFFLINE_VISIT',
          status: 'CONFIRMED',
          contactId: 'ct-1',
          startsAt: '2026-09-01T00:00:00Z',
          endsAt: '2026-09-01T01:00:00Z',
        },
        {
          recordType: 'BOOKING',
          bookingId: 'b-3',
          type: 'PERSONAL_BLOCK',
          status: 'SCHEDULED',
          startsAt: '2026-09-10T00:00:00Z',
          endsAt: '2026-09-10T01:00:00Z',
        },
        {
          recordType: 'BOOKING',
          bookingId: 'b-4',
          type: 'ONLINE',
          status: 'CANCELLED',
          startsAt: '2026-09-11T00:00:00Z',
          endsAt: '2026-09-11T01:00:00Z',
        },
        {
          recordType: 'BOOKING',
          bookingId: 'b-5',
          type: 'ONLINE',
          status: 'SCHEDULED',
          startsAt: '2026-10-01T00:00:00Z',
          endsAt: '2026-10-01T01:00:00Z',
        },
        {
          recordType: 'BOOKING',
          bookingId: 'b-6',
          type: 'ONLINE',
          status: 'CONFIRMED',
          agentUserId: 'u-2',
          contactId: 'ct-9',
          startsAt: '2026-09-15T09:00:00+09:00',
          endsAt: '2026-09-15T09:45:00+09:00',
        },
      ],
    ],
    body: {
      reportType: 'BOOKING',
      bookingTypes: ['ONLINE', 'OFFLINE_VISIT'],
      bookingStatuses: ['SCHEDULED', 'CONFIRMED'],
      bookingStartsOnOrAfter: '2026-09-01',
      bookingStartsOnOrBefore: '2026-09-30',
    },
    rows: [
      'bookingId,type,status,agentUserId,contactId,startsAt,endsAt',
      'b-1,ONLINE,SCHEDULED,u-1,,2026-09-30T23:59:59.999Z,2026-10-01T00:30:00.000Z',
      'b-6,ONLINE,CONFIRMED,u-2,ct-9,2026-09-15T00:00:00.000Z,2026-09-15T00:45:00.000Z',
      'b-2,OFFLINE_VISIT,CONFIRMED,,ct-1,2026-09-01T00:00:00.000Z,2026-09-01T01:00:00.000Z',
    ],
  },
  {
    name: 'FOLLOW_UPS keeps open call follow-ups of the listed agents due on or before an offset time',
    imports: [
      [
        {
          recordType: 'FOLLOW_UPS',
          followUpId: 'f-1',
          kind: 'CALL',
          status: 'PENDING',
          agentUserId: 'u-1',
          note: 'Call back re: "invoice", ASAP',
          dueAt: '2026-10-15T10:00:00Z',
        },
        {
          recordType: 'FOLLOW_UPS',
          followUpId: 'f-2',
          kind: 'CALL',
          status: 'DUE',
          agentUserId: 'u-2',
          chatId: 'chat-9',
          note: '\tindented +++',
          dueAt: '2026-10-01T08:00:00+00:00',
        },
        {
          recordType: 'FOLLOW_UPS',
          followUpId: 'f-3',
          kind: 'CHAT',
          status: 'PENDING',
          agentUserId: 'u-1',
          dueAt: '2026-10-02T00:00:00Z',
        },
        {
          recordType: 'FOLLOW_UPS',
          followUpId: 'f-4',
          kind: 'CALL',
          status: 'COMPLETED',
          agentUserId: 'u-1',
          dueAt: '2026-10-03T00:00:00Z',
        },
        { recordType: 'FOLLOW_UPS', followUpId: 'f-5', kind: 'CALL', status: 'PENDING', dueAt: '2026-10-04T00:00:00Z' },
        {
          recordType: 'FOLLOW_UPS',
          followUpId: 'f-6',
          kind: 'CALL',
          status: 'DUE',
          agentUserId: 'u-1',
          dueAt: '2026-10-15T10:00:00.001Z',
        },
      ],
    ],
    body: {
      reportType: 'FOLLOW_UPS',
      followUpKind: 'CALL',
      followUpStatuses: ['PENDING', 'DUE'],
      followUpAgentUserIds: ['u-1', 'u-2'],
      followUpDueOnOrBefore: '2026-10-15T12:00:00+02:00',
    },
    rows: [
      'followUpId,kind,status,agentUserId,chatId,note,dueAt',
      'f-1,CALL,PENDING,u-1,,"Call back re: ""invoice"", ASAP",2026-10-15T10:00:00.000Z',
      "f-2,CALL,DUE,u-2,chat-9,'\tindented +++,2026-10-01T08:00:00.000Z",
    ],
  },
  {
    name: 'SURVEY_RESPONSES keeps responses of a form, statuses and exact channel started on or after an offset time',
    imports: [
      [
        {
          recordType: 'SURVEY_RESPONSES',
          responseId: 's-1',
          surveyFormId: 'form-nps',
          status: 'COMPLETED',
          source: 'INVITE',
          channel: 'whatsapp',
          answers: { q2: 'Great, thanks!', q1: 9, '10': 'no', '9': 'yes', q10: ['a', 'b'] },
          startedAt: '2026-11-02T10:00:00+01:00',
          completedAt: '2026-11-02T10:05:00+01:00',
        },
        {
          recordType: 'SURVEY_RESPONSES',
          responseId: 's-2',
          surveyFormId: 'form-nps',
          status: 'IN_PROGRESS',
          source: 'PUBLIC_LINK',
          channel: 'whatsapp',
          answers: {},
          startedAt: '2026-11-01T03:00:00Z',
        },
        {
          recordType: 'SURVEY_RESPONSES',
          responseId: 's-3',
          surveyFormId: 'form-nps',
          status: 'COMPLETED',
          source: 'API',
          channel: 'WhatsApp',
          answers: {},
          startedAt: '2026-11-03T00:00:00Z',
        },
        {
          recordType: 'SURVEY_RESPONSES',
          responseId: 's-4',
          surveyFormId: 'form-nps',
          status: 'ABANDONED',
          source: 'INVITE',
          channel: 'whatsapp',
          answers: {},
          startedAt: '2026-11-04T00:00:00Z',
        },
        {
          recordType: 'SURVEY_RESPONSES',
          responseId: 's-5',
          surveyFormId: 'form-csat',
          status: 'COMPLETED',
          source: 'INVITE',
          channel: 'whatsapp',
          answers: {},
          startedAt: '2026-11-05T00:00:00Z',
        },
        {
          recordType: 'SURVEY_RESPONSES',
          responseId: 's-6',
          surveyFormId: 'form-nps',
          status: 'COMPLETED',
          source: 'INVITE',
          channel: 'whatsapp',
          answers: {},
          startedAt: '2026-11-01T02:59:59.999Z',
        },
      ],
    ],
    body: {
      reportType: 'SURVEY_RESPONSES',
      surveyFormIds: ['form-nps'],
      surveyStatuses: ['COMPLETED', 'IN_PROGRESS'],
      surveyChannel: 'whatsapp',
      surveyStartedOnOrAfter: '2026-11-01T00:00:00-03:00',
    },
    rows: [
      'responseId,surveyFormId,status,source,channel,answers,startedAt,completedAt',
      's-1,form-nps,COMPLETED,INVITE,whatsapp,' +
        '"{""10"":""no"",""9"":""yes"",""q1"":9,""q10"":[""a"",""b""],""q2"":""Great, thanks!""}",' +
        '2026-11-02T09:00:00.000Z,2026-11-02T09:05:00.000Z',
      's-2,form-nps,IN_PROGRESS,PUBLIC_LINK,whatsapp,{},2026-11-01T03:00:00.000Z,',
    ],
  },
  {
    name: 'FLOW_RESPONSES keeps responses of a flow and sources within one UTC day given as bare dates',
    imports: [
      [
        {
          recordType: 'FLOW_RESPONSES',
          responseId: 'fr-1',
          flowId: 'flow-1',
          source: 'journey',
          chatId: 'chat-1',
          response: { z: null, a: { y: 'x', b: [1, { d: 1, c: 2 }] } },
          respondedAt: '2026-12-01T23:59:59.999Z',
        },
        {
          recordType: 'FLOW_RESPONSES',
          responseId: 'fr-2',
          flowId: 'flow-1',
          source: 'campaign',
          response: { '=formula': '-1' },
          respondedAt: '2026-12-01T01:00:00+01:00',
        },
        {
          recordType: 'FLOW_RESPONSES',
          responseId: 'fr-3',
          flowId: 'flow-1',
          source: 'journey',
          response: {},
          respondedAt: '2026-12-01T23:30:00-01:00',
        },
        {
          recordType: 'FLOW_RESPONSES',
          responseId: 'fr-4',
          flowId: 'flow-1',
          source: 'test_send',
          response: {},
          respondedAt: '2026-12-01T12:00:00Z',
        },
        {
          recordType: 'FLOW_RESPONSES',
          responseId: 'fr-5',
          flowId: 'flow-2',
          source: 'journey',
          response: {},
          respondedAt: '2026-12-01T12:00:00Z',
        },
      ],
    ],
    body: {
      reportType: 'FLOW_RESPONSES',
      flowIds: ['flow-1'],
      flowSources: ['journey', 'campaign'],
      flowRespondedOnOrAfter: '2026-12-01',
      flowRespondedOnOrBefore: '2026-12-01',
    },
    rows: [
      'responseId,flowId,source,chatId,response,respondedAt',
      'fr-1,flow-1,journey,chat-1,"{""a"":{""b"":[1,{""c"":2,""d"":1}],""y"":""x""},""z"":null}",2026-12-01T23:59:59.999Z',
      'fr-2,flow-1,campaign,,"{""=formula"":""-1""}",2026-12-01T00:00:00.000Z',
    ],
  },
  {
    name: 'CHAT with no matching record (only resolved chats, isResolved omitted) is a header-only file',
    imports: [
      [
        chat({ chatId: 'chat-1', name: 'Resolved one', isResolved: true, updatedAt: '2026-03-01T00:00:00Z' }),
        chat({ chatId: 'chat-2', name: 'Resolved two', isResolved: true, updatedAt: '2026-03-02T00:00:00Z' }),
      ],
    ],
    body: { reportType: 'CHAT' },
    storedFilters: { isResolved: false },
    rows: [CHAT_HEADER],
  },
  {
    name: 'FOLLOW_UPS orders records of one time by id in code-unit order, characters beyond the BMP included',
    imports: [
      ['f-😀', 'f-！', 'f-a'].map((followUpId) => ({
        recordType: 'FOLLOW_UPS',
        followUpId,
        kind: 'CALL',
        status: 'PENDING',
        dueAt: '2026-10-01T00:00:00Z',
      })),
    ],
    body: { reportType: 'FOLLOW_UPS' },
    rows: [
      'followUpId,kind,status,agentUserId,chatId,note,dueAt',
      'f-！,CALL,PENDING,,,,2026-10-01T00:00:00.000Z',
      'f-😀,CALL,PENDING,,,,2026-10-01T00:00:00.000Z',
      'f-a,CALL,PENDING,,,,2026-10-01T00:00:00.000Z',
    ],
  },
  {
    name: 'BOOKING keeps every record exactly at an inclusive upper bound, whatever its id',
    imports: [
      ['😀', 'b-！', 'b-a'].map((bookingId) => ({
        recordType: 'BOOKING',
        bookingId,
        type: 'ONLINE',
        status: 'SCHEDULED',
        startsAt: '2026-09-30T12:00:00Z',
        endsAt: '2026-09-30T13:00:00Z',
      })),
    ],
    body: { reportType: 'BOOKING', bookingStartsOnOrBefore: '2026-09-30T12:00:00Z' },
    rows: [
      'bookingId,type,status,agentUserId,contactId,startsAt,endsAt',
      '😀,ONLINE,SCHEDULED,,,2026-09-30T12:00:00.000Z,2026-09-30T13:00:00.000Z',
      'b-！,ONLINE,SCHEDULED,,,2026-09-30T12:00:00.000Z,2026-09-30T13:00:00.000Z',
      'b-a,ONLINE,SCHEDULED,,,2026-09-30T12:00:00.000Z,2026-09-30T13:00:00.000Z',
    ],
  },
  {
    name: 'CONTACT stores any JSON object of custom fields, a __proto__ key and a huge number included',
    imports: [
      [
        {
          recordType: 'CONTACT',
          contactId: 'c1',
          name: 'Proto',
          channelIds: [],
          customFields: JSON.parse('{"__proto__":{"x":1},"big":12345678901234567890}'),
          createdAt: '2026-04-02T00:00:00Z',
        },
      ],
    ],
    body: { reportType: 'CONTACT' },
    rows: [
      'contactId,name,phone,email,channelIds,createdByUserId,customFields,createdAt',
      'c1,Proto,,,,,"{""__proto__"":{""x"":1},""big"":12345678901234567000}",2026-04-02T00:00:00.000Z',
    ],
  },
];

describe('report files of the nine report types (CONTRACT §6 "The file", §8, §9)', () => {
  const api = useLocalStack();

  async function freshOrganisation(name: string) {
    const { orgId } = await createOrg(deps(), { name });
    const { clientId, clientSecret } = await createCredential(deps(), { orgId, roles: ['CRM_ADMIN'] });
    const response = await api.call('/token', { method: 'POST', json: { clientId, clientSecret } });
    expect(response.status).toBe(200);
    return { orgId, token: ((await response.json()) as { accessToken: string }).accessToken };
  }

  async function importBatch(orgId: string, records: Row[]) {
    const lines = records.map((record) => JSON.stringify(record));
    const result = await importRecords(
      { crm: deps().crm },
      {
        orgId,
        lines: async function* () {
          yield* lines;
        },
      },
    );
    expect(result).toMatchObject({ ok: true, imported: records.length });
  }

  /** Requests the report, waits for COMPLETED, and downloads the file through the 303. */
  async function produceReport(orgId: string, token: string, body: Row) {
    const requested = await api.call(`/reports/${orgId}`, { method: 'POST', token, json: body });
    expect(requested.status).toBe(202);
    const accepted = (await requested.json()) as ReportView;
    expect(requested.headers.get('location')).toBe(`/api/wp-crm/reports/${orgId}/${accepted.reportId}`);
    const report = await eventually(
      async () => {
        const response = await api.call(`/reports/${orgId}/${accepted.reportId}`, { token });
        const current = (await response.json()) as ReportView;
        expect(current.status).toBe('COMPLETED');
        return current;
      },
      { timeoutMs: 10_000 },
    );
    const redirect = await api.call(`/reports/${orgId}/${accepted.reportId}/download`, { token, redirect: 'manual' });
    expect(redirect.status).toBe(303);
    const location = redirect.headers.get('location')!;
    expect(new URL(location).searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    const file = await fetch(location);
    expect(file.status).toBe(200);
    const bytes = new Uint8Array(await file.arrayBuffer());
    return {
      accepted,
      report,
      disposition: file.headers.get('content-disposition'),
      contentType: file.headers.get('content-type'),
      bytes,
      text:
        body.format === 'xlsx'
          ? ''
          : new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(decompressed(bytes)),
    };
  }

  /** The case's records in a fresh organisation, and its report in `format` with `compression`. */
  async function produceFile(
    imports: Row[][],
    body: { reportType: string } & Row,
    format: ReportFormat,
    compression: ReportCompression,
  ) {
    const { orgId, token } = await freshOrganisation(`report ${body.reportType} ${format} ${compression}`);
    for (const batch of imports) await importBatch(orgId, batch);
    const produced = await produceReport(orgId, token, { ...body, format, compression });
    const extension = `${format}${compression === 'gzip' ? '.gz' : ''}`;
    expect(produced.accepted.filters).not.toHaveProperty('format');
    expect(produced.report).toMatchObject({
      format: reportMediaType(format, compression),
      sizeBytes: produced.bytes.length,
      truncatedCells: 0,
    });
    expect(produced.disposition).toMatch(
      new RegExp(`^attachment; filename="[\\w.-]+\\.${extension.replace('.', '\\.')}"$`),
    );
    expect(produced.contentType).toMatch(new RegExp(`^${reportMediaType(format, compression)}(;|$)`));
    if (compression === 'gzip') expect([...produced.bytes.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    return { ...produced, plain: decompressed(produced.bytes) };
  }

  /** JSONL: one object per CSV row, with the §9 keys in order; rendered as CSV cells it is the CSV. */
  function expectJsonl(type: ReportType, text: string, rows: string[]) {
    expect(text === '' || text.endsWith('\n')).toBe(true);
    const records = text
      .split('\n')
      .slice(0, -1)
      .map((line) => JSON.parse(line) as Row);
    for (const record of records) expect(Object.keys(record)).toEqual(RECORD_KINDS[type].columns);
    expect(csvHeader(type) + records.map((record) => csvRow(type, record as never)).join('')).toBe(csv(rows));
    return records;
  }

  /** XLSX: the CSV's cells one by one (text cells without the CSV's formula guard), typed as the JSONL values. */
  async function expectXlsx(type: ReportType, bytes: Uint8Array, rows: string[], records: Row[]) {
    const { columns, timeColumns } = RECORD_KINDS[type] as {
      columns: readonly string[];
      timeColumns: readonly string[];
    };
    const sheets = await readXlsx(bytes, columns.length);
    expect(sheets).toHaveLength(1);
    const [sheet] = sheets;
    expect(sheet!.name).toBe(type);
    expect(sheet!.frozenRows).toBe(1);
    expect(sheet!.autoFilter).toBe(`A1:${String.fromCharCode(64 + columns.length)}${rows.length}`);
    expect(sheet!.rows.map((row) => row.map(csvTextOf))).toEqual(parseCsv(csv(rows)));
    const types = sheet!.rows.slice(1).map((row) => row.map((cell) => cell.type));
    expect(types).toEqual(
      records.map((record) => columns.map((column) => expectedCellType(record[column], timeColumns.includes(column)))),
    );
    // Every column as wide as its type and header (a time never shows ###), and the used range declared.
    expect(sheet!.widths).toEqual(columnWidths(type));
    const [part] = readXlsxSheetParts(bytes);
    expect(part!.dimension).toBe(`A1:${String.fromCharCode(64 + columns.length)}${rows.length}`);
  }

  it.each(CASES)('$name', async ({ imports, body, storedFilters, rows }) => {
    const { orgId, token } = await freshOrganisation(`report ${body.reportType}`);
    for (const batch of imports) await importBatch(orgId, batch);

    const { accepted, report, disposition, bytes, text } = await produceReport(orgId, token, body);

    const { reportType, ...filters } = body;
    expect(accepted).toMatchObject({ status: 'PENDING', reportType });
    expect(accepted.filters).toEqual(storedFilters ?? filters);
    expect(text).toBe(csv(rows));
    expect(report).toMatchObject({
      reportType,
      format: 'text/csv',
      rowCount: rows.length - 1,
      sizeBytes: bytes.length,
      truncatedCells: 0,
    });
    expect(Date.parse(report.expiresAt!)).toBeGreaterThan(Date.now());
    expect(disposition).toMatch(/^attachment; filename="[\w.-]+\.csv"$/);
  });

  // Every format of every case (a fresh organisation each: the window is per type, whatever the format), and each
  // format gzipped in turn.
  it.each(CASES.map((item, index) => ({ ...item, zipped: (['csv', 'jsonl', 'xlsx'] as const)[index % 3]! })))(
    '$name, as JSONL, XLSX and a gzipped $zipped',
    async ({ imports, body, rows, zipped }) => {
      const type = body.reportType as ReportType;

      const jsonl = await produceFile(imports, body, 'jsonl', 'none');
      const xlsx = await produceFile(imports, body, 'xlsx', 'none');
      const gzipped = await produceFile(imports, body, zipped, 'gzip');

      const records = expectJsonl(type, jsonl.text, rows);
      await expectXlsx(type, xlsx.plain, rows, records);
      if (zipped === 'csv') expect(gzipped.text).toBe(csv(rows));
      else if (zipped === 'jsonl') expect(gzipped.text).toBe(jsonl.text);
      else await expectXlsx(type, gzipped.plain, rows, records);
    },
  );

  describe('a text longer than an XLSX cell holds (CONTRACT §23)', () => {
    const receiver = useReceiver();

    it('is cut in the XLSX with a visible mark, counted on the record and in report.completed; whole in CSV and JSONL', async () => {
      // 40 names of 1,000 characters: 40,039 characters once joined with `;`, over the cell's 32,767.
      const names = Array.from({ length: 40 }, (_, n) => `${n}`.padEnd(1_000, 'n'));
      const ticket = {
        recordType: 'TICKET',
        ticketId: 't-long',
        number: 1,
        isResolved: false,
        priority: 'LOW',
        assignedUserIds: [],
        issueNames: names,
        createdAt: '2026-03-02T10:00:00Z',
      };
      const short = { ...ticket, ticketId: 't-short', issueNames: ['one'], createdAt: '2026-03-01T10:00:00Z' };
      const { orgId, token } = await freshOrganisation('long text');
      await importBatch(orgId, [ticket, short]);
      const subscribed = await api.call(`/webhooks/${orgId}`, {
        method: 'POST',
        token,
        json: { url: `${receiver.url}/long-text`, events: ['report.completed'] },
      });
      expect(subscribed.status).toBe(201);

      const xlsx = await produceReport(orgId, token, { reportType: 'TICKET', format: 'xlsx' });

      expect(xlsx.report).toMatchObject({ status: 'COMPLETED', rowCount: 2, truncatedCells: 1 });
      const [sheet] = await readXlsx(xlsx.bytes, RECORD_KINDS.TICKET.columns.length);
      const issueNames = RECORD_KINDS.TICKET.columns.indexOf('issueNames');
      const cut = (sheet!.rows[1]![issueNames] as { value: string }).value;
      expect(cut).toHaveLength(XLSX_MAX_CELL_CHARS);
      expect(cut).toBe(names.join(';').slice(0, XLSX_MAX_CELL_CHARS - XLSX_TRUNCATION_MARK.length) + '…[truncated]');
      expect(sheet!.rows[2]![issueNames]).toEqual({ type: 'string', value: 'one' });
      const event = await eventually(() => {
        const found = api.stack.bus.published.find(
          (candidate) =>
            candidate['detail-type'] === 'report.completed' && candidate.detail.report_id === xlsx.accepted.reportId,
        );
        expect(found).toBeDefined();
        return found!;
      });
      expect(event.detail).toMatchObject({ row_count: 2, truncatedCells: 1 });
      // The delivery is what the document declares, to a strict validator.
      const [delivery] = await eventually(() => {
        const got = receiver.requestsTo('/long-text');
        expect(got).toHaveLength(1);
        return got;
      });
      expect(JSON.parse(delivery!.body)).toMatchObject({ type: 'report.completed', truncatedCells: 1 });
      expect(new OpenApiValidator(openApiDocument()).validateDelivery(delivery!)).toEqual([]);

      for (const format of ['csv', 'jsonl'] as const) {
        const other = await freshOrganisation(`long text ${format}`);
        await importBatch(other.orgId, [ticket, short]);
        const produced = await produceReport(other.orgId, other.token, { reportType: 'TICKET', format });
        expect(produced.report, format).toMatchObject({ status: 'COMPLETED', truncatedCells: 0 });
        expect(produced.text, format).toContain(format === 'csv' ? names.join(';') : JSON.stringify(names));
      }
    });
  });
});
