import * as v from 'valibot';
import type { FieldError } from '#shared/errors';
import { lazily } from '#shared/lazily';
import { issueMessage, issuePointer, pointerOf } from './issues.ts';
import { normaliseDateTime } from './time.ts';

/**
 * Each top-level schema is built through this, so a bundle that needs only the enums below (the report routes)
 * keeps none of the import schemas (shared/schemas/common.ts says why).
 */
/* @__NO_SIDE_EFFECTS__ */ const schema = <T>(build: () => T): T => build();

/** The nine record kinds, which are also the report types, in contract order (CONTRACT §6, §9). */
export const REPORT_TYPES = [
  'CHAT',
  'CONTACT',
  'TICKET',
  'CALL_LOG',
  'GOAL',
  'BOOKING',
  'FOLLOW_UPS',
  'SURVEY_RESPONSES',
  'FLOW_RESPONSES',
] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

/** Enums of CONTRACT §8/§9, shared by the record schemas and the report filters. */
export const CHAT_TYPES = ['INDIVIDUAL', 'GROUP'] as const;
export const BOT_JOURNEY_STATUSES = ['ACTIVE', 'AGENT_TRANSFERRED', 'CLOSED', 'COMPLETED'] as const;
export const MESSAGE_SENDERS = ['GUEST', 'AGENT', 'BOT'] as const;
export const TICKET_PRIORITIES = ['LOW', 'MEDIUM', 'HIGH', 'URGENT'] as const;
export const CALL_DIRECTIONS = ['INBOUND', 'OUTBOUND'] as const;
export const CALL_STATUSES = ['COMPLETED', 'MISSED', 'BUSY', 'FAILED', 'NO_ANSWER', 'CANCELLED'] as const;
export const BOOKING_TYPES = ['ONLINE', 'OFFLINE_VISIT', 'PERSONAL_BLOCK'] as const;
export const BOOKING_STATUSES = ['SCHEDULED', 'CONFIRMED', 'COMPLETED', 'CANCELLED', 'NO_SHOW'] as const;
export const FOLLOW_UP_KINDS = ['CHAT', 'CALL'] as const;
export const FOLLOW_UP_STATUSES = ['PENDING', 'DUE', 'COMPLETED', 'CANCELLED', 'EXPIRED'] as const;
export const SURVEY_STATUSES = ['IN_PROGRESS', 'COMPLETED', 'ABANDONED'] as const;
export const SURVEY_SOURCES = ['INVITE', 'PUBLIC_LINK', 'API'] as const;
export const FLOW_SOURCES = ['journey', 'campaign', 'chat_template', 'test_send'] as const;

const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  v.picklist(values, `must be one of ${values.join(', ')}`);
const text = (max: number) => v.pipe(v.string(), v.maxLength(max, `must be at most ${max} characters`));
const Id = schema(() =>
  v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(256, 'must be at most 256 characters')),
);
const Name = schema(() => text(1024));
const LongText = schema(() => text(10_000));
const Phone = schema(() => text(64));
const list = <S extends v.GenericSchema<string>>(item: S) =>
  v.pipe(v.array(item), v.maxLength(1000, 'must hold at most 1000 entries'));
const Ids = schema(() => list(Id));
const Count = schema(() =>
  v.pipe(v.number(), v.safeInteger('must be a non-negative integer'), v.minValue(0, 'must be a non-negative integer')),
);
const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
// v.record would accept arrays and silently drop a `__proto__` key; an import keeps the object as parsed.
const JsonObject = schema(() => v.custom<Record<string, unknown>>(isJsonObject, 'must be a JSON object'));
/** Stored as `toISOString()`, so the times of one kind sort as text and a key condition can range over them. */
const Time = schema(() =>
  v.pipe(
    v.string(),
    v.check((value) => normaliseDateTime(value) !== undefined, 'must be an RFC 3339 date-time with Z or an offset'),
    v.transform((value) => normaliseDateTime(value)!),
  ),
);
const OptionalTime = schema(() => v.optional(Time));

function kind<T extends ReportType, E extends v.ObjectEntries, I extends keyof E & string, W extends keyof E & string>(
  recordType: T,
  idField: I,
  timeField: W,
  entries: E,
) {
  const columns = Object.keys(entries) as (keyof E & string)[];
  return {
    schema: v.strictObject({ recordType: v.literal(recordType), ...entries }),
    idField,
    timeField,
    /** The CSV header, in §9 order. */
    columns,
    /** Columns written as `toISOString()`. */
    timeColumns: columns.filter((column) => [Time, OptionalTime].includes(entries[column] as never)),
  };
}

/**
 * Per kind: the import schema, the id field, the time field that orders reports, and the CSV columns (§9); each kind
 * built when first read (a report reads one).
 */
export const RECORD_KINDS = schema(() =>
  lazily({
    CHAT: () =>
      kind('CHAT', 'chatId', 'updatedAt', {
        chatId: Id,
        name: Name,
        chatType: oneOf(CHAT_TYPES),
        channelId: Id,
        externalChatId: v.optional(Id),
        isArchived: v.boolean(),
        isResolved: v.boolean(),
        isHighPriority: v.boolean(),
        autopilot: v.boolean(),
        botJourneyStatus: v.optional(oneOf(BOT_JOURNEY_STATUSES)),
        lastMessageFrom: v.optional(oneOf(MESSAGE_SENDERS)),
        assignedUserIds: Ids,
        assignedTeamIds: Ids,
        primaryAssigneeUserId: v.optional(Id),
        contactIds: Ids,
        stateMachineIds: Ids,
        currentStateIds: Ids,
        labelIds: Ids,
        externalItems: list(Name),
        createdAt: Time,
        updatedAt: Time,
      }),
    CONTACT: () =>
      kind('CONTACT', 'contactId', 'createdAt', {
        contactId: Id,
        name: Name,
        phone: v.optional(Phone),
        email: v.optional(text(320)),
        channelIds: Ids,
        createdByUserId: v.optional(Id),
        customFields: JsonObject,
        createdAt: Time,
      }),
    TICKET: () =>
      kind('TICKET', 'ticketId', 'createdAt', {
        ticketId: Id,
        number: Count,
        isResolved: v.boolean(),
        priority: oneOf(TICKET_PRIORITIES),
        assignedUserIds: Ids,
        createdByUserId: v.optional(Id),
        ticketMachineId: v.optional(Id),
        chatId: v.optional(Id),
        remarks: v.optional(LongText),
        issueNames: list(Name),
        createdAt: Time,
      }),
    CALL_LOG: () =>
      kind('CALL_LOG', 'callId', 'initiatedAt', {
        callId: Id,
        direction: oneOf(CALL_DIRECTIONS),
        status: oneOf(CALL_STATUSES),
        agentUserId: v.optional(Id),
        callingAccountId: v.optional(Id),
        callerNumber: Phone,
        calledNumber: Phone,
        chatId: v.optional(Id),
        recordingUrl: v.optional(text(2048)),
        talkDurationSeconds: Count,
        hangupCause: v.optional(Name),
        initiatedAt: Time,
      }),
    GOAL: () =>
      kind('GOAL', 'goalEventId', 'recordedAt', {
        goalEventId: Id,
        goalId: Id,
        channelId: v.optional(Id),
        chatId: v.optional(Id),
        trackerValues: JsonObject,
        recordedAt: Time,
      }),
    BOOKING: () =>
      kind('BOOKING', 'bookingId', 'startsAt', {
        bookingId: Id,
        type: oneOf(BOOKING_TYPES),
        status: oneOf(BOOKING_STATUSES),
        agentUserId: v.optional(Id),
        contactId: v.optional(Id),
        startsAt: Time,
        endsAt: Time,
      }),
    FOLLOW_UPS: () =>
      kind('FOLLOW_UPS', 'followUpId', 'dueAt', {
        followUpId: Id,
        kind: oneOf(FOLLOW_UP_KINDS),
        status: oneOf(FOLLOW_UP_STATUSES),
        agentUserId: v.optional(Id),
        chatId: v.optional(Id),
        note: v.optional(LongText),
        dueAt: Time,
      }),
    SURVEY_RESPONSES: () =>
      kind('SURVEY_RESPONSES', 'responseId', 'startedAt', {
        responseId: Id,
        surveyFormId: Id,
        status: oneOf(SURVEY_STATUSES),
        source: oneOf(SURVEY_SOURCES),
        channel: v.optional(Id),
        answers: JsonObject,
        startedAt: Time,
        completedAt: OptionalTime,
      }),
    FLOW_RESPONSES: () =>
      kind('FLOW_RESPONSES', 'responseId', 'respondedAt', {
        responseId: Id,
        flowId: Id,
        source: oneOf(FLOW_SOURCES),
        chatId: v.optional(Id),
        response: JsonObject,
        respondedAt: Time,
      }),
  }),
);

type Fields<T extends ReportType> = Omit<v.InferOutput<(typeof RECORD_KINDS)[T]['schema']>, 'recordType'>;
export type ChatRecord = Fields<'CHAT'>;
export type ContactRecord = Fields<'CONTACT'>;
export type TicketRecord = Fields<'TICKET'>;
export type CallLogRecord = Fields<'CALL_LOG'>;
export type GoalRecord = Fields<'GOAL'>;
export type BookingRecord = Fields<'BOOKING'>;
export type FollowUpRecord = Fields<'FOLLOW_UPS'>;
export type SurveyResponseRecord = Fields<'SURVEY_RESPONSES'>;
export type FlowResponseRecord = Fields<'FLOW_RESPONSES'>;

/** The record of one kind, as stored (without `recordType`: chats written by the groups flow have none). */
export interface RecordTypes {
  CHAT: ChatRecord;
  CONTACT: ContactRecord;
  TICKET: TicketRecord;
  CALL_LOG: CallLogRecord;
  GOAL: GoalRecord;
  BOOKING: BookingRecord;
  FOLLOW_UPS: FollowUpRecord;
  SURVEY_RESPONSES: SurveyResponseRecord;
  FLOW_RESPONSES: FlowResponseRecord;
}
export type RecordOf<T extends ReportType> = RecordTypes[T];

/** One import line: any kind, tagged with `recordType`. */
export type CrmRecord = { [T in ReportType]: { recordType: T } & RecordTypes[T] }[ReportType];

/** The strict schema of one import line (CONTRACT §9); its output has every time normalised to UTC with ms. */
export const CrmRecordLine = schema(() =>
  v.variant(
    'recordType',
    [
      RECORD_KINDS.CHAT.schema,
      RECORD_KINDS.CONTACT.schema,
      RECORD_KINDS.TICKET.schema,
      RECORD_KINDS.CALL_LOG.schema,
      RECORD_KINDS.GOAL.schema,
      RECORD_KINDS.BOOKING.schema,
      RECORD_KINDS.FOLLOW_UPS.schema,
      RECORD_KINDS.SURVEY_RESPONSES.schema,
      RECORD_KINDS.FLOW_RESPONSES.schema,
    ],
    `must be one of ${REPORT_TYPES.join(', ')}`,
  ),
);

/** The id of a record of kind `type` (the tie-breaker of the report order). */
export const recordId = <T extends ReportType>(type: T, record: RecordOf<T>): string =>
  (record as Record<string, unknown>)[RECORD_KINDS[type].idField] as string;

/** The time that orders and ranges reports of kind `type`. */
export const recordTime = <T extends ReportType>(type: T, record: RecordOf<T>): string =>
  (record as Record<string, unknown>)[RECORD_KINDS[type].timeField] as string;

export type RecordLineResult = { ok: true; record: CrmRecord } | { ok: false; errors: FieldError[] };

const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The text of an error for a string (or key) that holds an unpaired surrogate. */
function unpairedSurrogateMessage(what: string, text: string): string {
  const at = text.search(UNPAIRED_SURROGATE);
  const unit = text.charCodeAt(at).toString(16).toUpperCase();
  return `must not be ${what} that holds an unpaired surrogate (U+${unit} at character ${at + 1})`;
}

/**
 * Every string of a parsed line (keys too, at any depth) that holds an unpaired surrogate, in document order: JSON's
 * `\uD800` escapes allow one, but no UTF-8 file can hold it, so each report format would write something else
 * (CONTRACT §23). Walked with a stack of its own, so that no nesting depth can overflow the call stack.
 */
function unpairedSurrogates(root: unknown): FieldError[] {
  interface Node {
    value: unknown;
    key?: string | number;
    parent?: Node;
  }
  const pathOf = (node: Node) => {
    const path: (string | number)[] = [];
    for (let at: Node | undefined = node; at?.parent; at = at.parent) path.push(at.key!);
    return path.reverse();
  };
  const errors: FieldError[] = [];
  const stack: Node[] = [{ value: root }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const { value, key } = node;
    if (typeof key === 'string' && UNPAIRED_SURROGATE.test(key))
      errors.push({ pointer: pointerOf(pathOf(node)), message: unpairedSurrogateMessage('a key', key) });
    if (typeof value === 'string') {
      if (UNPAIRED_SURROGATE.test(value))
        errors.push({ pointer: pointerOf(pathOf(node)), message: unpairedSurrogateMessage('text', value) });
    } else if (typeof value === 'object' && value !== null) {
      const entries: [string | number, unknown][] = Array.isArray(value) ? [...value.entries()] : Object.entries(value);
      for (let at = entries.length - 1; at >= 0; at--)
        stack.push({ value: entries[at]![1], key: entries[at]![0], parent: node });
    }
  }
  return errors;
}

/**
 * Validates one parsed import line. Errors carry JSON Pointers into the line (`/customFields`,
 * `/assignedUserIds/2`); the record has its time fields normalised with `toISOString()`. A string (or an object's
 * key) holding an unpaired surrogate is refused wherever it is.
 */
export function parseRecordLine(value: unknown): RecordLineResult {
  const surrogates = unpairedSurrogates(value);
  const result = v.safeParse(CrmRecordLine, value);
  if (result.success && surrogates.length === 0) return { ok: true, record: result.output as CrmRecord };
  return {
    ok: false,
    errors: [
      ...surrogates,
      ...(result.issues ?? []).map((issue) => ({ pointer: issuePointer(issue), message: issueMessage(issue) })),
    ],
  };
}
