import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvCell, csvHeader, csvRow } from '#shared/domain/reports/csv';
import { compareForReport } from '#shared/domain/reports/filters';
import { REPORT_TYPES, type RecordOf } from '#shared/domain/reports/records';
import { csvGuarded as guarded, parseCsv } from '#test/support/report-files';
import { anna, build } from './builders.ts';

describe('csvHeader', () => {
  it.each([
    [
      'CHAT',
      'chatId,name,chatType,channelId,externalChatId,isArchived,isResolved,isHighPriority,autopilot,botJourneyStatus,lastMessageFrom,assignedUserIds,assignedTeamIds,primaryAssigneeUserId,contactIds,stateMachineIds,currentStateIds,labelIds,externalItems,createdAt,updatedAt',
    ],
    ['CONTACT', 'contactId,name,phone,email,channelIds,createdByUserId,customFields,createdAt'],
    [
      'TICKET',
      'ticketId,number,isResolved,priority,assignedUserIds,createdByUserId,ticketMachineId,chatId,remarks,issueNames,createdAt',
    ],
    [
      'CALL_LOG',
      'callId,direction,status,agentUserId,callingAccountId,callerNumber,calledNumber,chatId,recordingUrl,talkDurationSeconds,hangupCause,initiatedAt',
    ],
    ['GOAL', 'goalEventId,goalId,channelId,chatId,trackerValues,recordedAt'],
    ['BOOKING', 'bookingId,type,status,agentUserId,contactId,startsAt,endsAt'],
    ['FOLLOW_UPS', 'followUpId,kind,status,agentUserId,chatId,note,dueAt'],
    ['SURVEY_RESPONSES', 'responseId,surveyFormId,status,source,channel,answers,startedAt,completedAt'],
    ['FLOW_RESPONSES', 'responseId,flowId,source,chatId,response,respondedAt'],
  ] as const)('writes the §9 columns of %s in order, ending with CRLF', (type, header) => {
    expect(csvHeader(type)).toBe(`${header}\r\n`);
  });

  it('is the whole file for an empty result', () => {
    const file = csvHeader('BOOKING') + ([] as RecordOf<'BOOKING'>[]).map((b) => csvRow('BOOKING', b)).join('');

    expect(Buffer.from(file)).toEqual(Buffer.from('bookingId,type,status,agentUserId,contactId,startsAt,endsAt\r\n'));
  });
});

describe('csvRow', () => {
  it('writes a CHAT row byte for byte', () => {
    const chat = build('CHAT', {
      chatId: 'chat-1',
      name: 'Support, Berlin',
      chatType: 'GROUP',
      isResolved: true,
      autopilot: true,
      botJourneyStatus: 'ACTIVE',
      assignedUserIds: ['u1', 'u2'],
      labelIds: ['l1'],
      externalItems: ['say "hi"'],
      updatedAt: '2026-11-30T10:00:00+02:00',
    });

    expect(csvRow('CHAT', chat)).toBe(
      'chat-1,"Support, Berlin",GROUP,ch-1,,false,true,false,true,ACTIVE,,u1;u2,,,,,,l1,"say ""hi""",' +
        '2026-11-01T00:00:00.000Z,2026-11-30T08:00:00.000Z\r\n',
    );
  });

  it('writes numbers as JSON, absent and null as empty, guards spaced phones, and leaves out fields outside §9', () => {
    const call = {
      ...build('CALL_LOG', { callId: 'c1', talkDurationSeconds: 0, agentUserId: null as unknown as string }),
      orgId: 'o1',
    };

    expect(csvRow('CALL_LOG', call)).toBe(
      "c1,INBOUND,COMPLETED,,,'+44 20 7946 0000,'+44 20 7946 0001,,,0,,2026-11-15T12:00:00.000Z\r\n",
    );
  });

  it('writes objects as compact JSON with keys sorted at every depth', () => {
    const trackerValues = { b: 1, a: { d: [{ z: 1, y: 'x' }], c: null }, '10': true, '9': false };

    expect(csvRow('GOAL', build('GOAL', { goalEventId: 'ge', goalId: 'g', trackerValues }))).toBe(
      'ge,g,,,"{""10"":true,""9"":false,""a"":{""c"":null,""d"":[{""y"":""x"",""z"":1}]},""b"":1}",' +
        '2026-11-15T12:00:00.000Z\r\n',
    );
    expect(csvCell({})).toBe('{}');
  });

  it('writes a contact whose phone looks like a formula but is a number, unprefixed', () => {
    expect(csvRow('CONTACT', { ...anna, phone: '+4915112345678', customFields: { tier: 'gold' } })).toBe(
      'c-anna,Anna Schmidt,+4915112345678,anna@example.com,,,"{""tier"":""gold""}",2026-11-15T12:00:00.000Z\r\n',
    );
  });
});

describe('csvCell', () => {
  it.each([
    ['plain', 'plain'],
    ['', ''],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['"', '""""'],
    ['line\nbreak', '"line\nbreak"'],
    ['carriage\rreturn', '"carriage\rreturn"'],
    ['crlf\r\n', '"crlf\r\n"'],
    ['semi;colon', 'semi;colon'],
    ["it's", "it's"],
    [' padded ', ' padded '],
    ['=1+2', "'=1+2"],
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['+4915112345678', '+4915112345678'],
    ['+1.5', '+1.5'],
    ['-5', '-5'],
    ['-0.25', '-0.25'],
    ['12', '12'],
    ['-x', "'-x"],
    ['+', "'+"],
    ['-', "'-"],
    ['+1.', "'+1."],
    ['-1e5', "'-1e5"],
    ['+49 151 2345', "'+49 151 2345"],
    ['\tcmd', "'\tcmd"],
    ['\rcmd', `"'\rcmd"`],
    ['a=1', 'a=1'],
  ])('writes %j as %j', (text, cell) => {
    expect(csvCell(text)).toBe(cell);
  });

  it.each([
    [true, 'true'],
    [false, 'false'],
    [0, '0'],
    [-5, '-5'],
    [1.5, '1.5'],
    [null, ''],
    [undefined, ''],
    [[], ''],
    [['a', 'b,c'], '"a;b,c"'],
    [['=x'], "'=x"],
  ])('writes the value %j as %j', (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });

  it('writes a time column in the stored UTC millisecond form, normalising any other RFC 3339 form', () => {
    expect(csvCell('2026-06-01T08:30:00.000Z', true)).toBe('2026-06-01T08:30:00.000Z');
    expect(csvCell('2026-06-01T10:30:00+02:00', true)).toBe('2026-06-01T08:30:00.000Z');
    expect(csvCell('2026-06-01T08:30:00.5Z', true)).toBe('2026-06-01T08:30:00.500Z');
    expect(csvCell(['2026-06-01T08:30:00Z', '2026-06-02T08:30:00.000Z'], true)).toBe(
      '2026-06-01T08:30:00.000Z;2026-06-02T08:30:00.000Z',
    );
    expect(csvCell('not a time', true)).toBe('not a time');
  });

  it('guards a negative number that is not written as a plain decimal', () => {
    expect(csvCell(-1e-7)).toBe("'-1e-7");
  });

  it('round-trips any text through an RFC 4180 reader, with only the formula guard added', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({
        unit: fc.constantFrom(',', '"', '\r', '\n', '=', '+', '-', '@', '\t', ';', "'", ' ', 'a', '1', '.'),
      }),
    );

    fc.assert(
      fc.property(text, text, (name, email) => {
        const rows = parseCsv(csvHeader('CONTACT') + csvRow('CONTACT', { ...anna, name, email }));

        expect(rows).toHaveLength(2);
        expect(rows[1]).toHaveLength(8);
        expect([rows[1]![1], rows[1]![3]]).toEqual([guarded(name), guarded(email)]);
      }),
      { numRuns: 1000 },
    );
  });

  it('writes a file that reads back as one row per record, in report order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string(), fc.string(), fc.integer({ min: 0, max: 5 })), { maxLength: 20 }),
        (items) => {
          const calls = items.map(([callId, hangupCause, minute], index) =>
            build('CALL_LOG', {
              callId: `${index}-${callId}`,
              hangupCause,
              initiatedAt: `2026-11-15T12:0${minute}:00.000Z`,
            }),
          );
          const sorted = [...calls].sort((a, b) => compareForReport('CALL_LOG', a, b));

          const rows = parseCsv(csvHeader('CALL_LOG') + sorted.map((call) => csvRow('CALL_LOG', call)).join(''));

          expect(rows.slice(1).map((row) => row[0])).toEqual(sorted.map((call) => guarded(call.callId)));
          expect(rows.slice(1).map((row) => row[10])).toEqual(sorted.map((call) => guarded(call.hangupCause ?? '')));
        },
      ),
    );
  });

  it.each(REPORT_TYPES)('writes as many cells as header columns for a %s record', (type) => {
    const [header] = parseCsv(csvHeader(type));
    const [row] = parseCsv(csvRow(type, build(type)));

    expect(row).toHaveLength(header!.length);
  });
});
