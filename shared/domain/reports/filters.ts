import { parseRules, type ReportFilters, type ReportRule } from '#shared/schemas/reports';
import { canonicalJson } from './json.ts';
import {
  type ChatRecord,
  type ContactRecord,
  type RecordOf,
  type RecordTypes,
  type ReportType,
  recordId,
  recordTime,
} from './records.ts';
import { instantOf, isoOf, parseDate, parseDateTime } from './time.ts';

/**
 * The related records a filter may look at, prefetched by the worker for one page of records and read
 * synchronously here. `CompiledReportFilter.joins` says which of the three the worker must fill.
 */
export interface JoinView {
  /** The chat with this id (`joins.chatById`). */
  chat(chatId: string): ChatRecord | undefined;
  /** The existing contacts among the chat's `contactIds` (`joins.contactsOfChat`). */
  contactsOfChat(chatId: string): ContactRecord[];
  /** The ids of the chats that list this contact in their `contactIds` (`joins.chatsOfContact`). */
  chatIdsOfContact(contactId: string): string[];
}

/** A join view with nothing in it, for filters whose `joins` are all false. */
export const NO_JOINS: JoinView = { chat: () => undefined, contactsOfChat: () => [], chatIdsOfContact: () => [] };

/** A join view over records already in memory: the local store, tests, or one prefetched page. */
export function joinViewOf(chats: readonly ChatRecord[], contacts: readonly ContactRecord[]): JoinView {
  const chatsById = new Map(chats.map((chat) => [chat.chatId, chat]));
  const contactsById = new Map(contacts.map((contact) => [contact.contactId, contact]));
  const chatIdsByContact = new Map<string, string[]>();
  for (const chat of chats) {
    for (const contactId of new Set(chat.contactIds)) {
      chatIdsByContact.set(contactId, [...(chatIdsByContact.get(contactId) ?? []), chat.chatId]);
    }
  }
  return {
    chat: (chatId) => chatsById.get(chatId),
    contactsOfChat: (chatId) =>
      (chatsById.get(chatId)?.contactIds ?? []).flatMap((contactId) => contactsById.get(contactId) ?? []),
    chatIdsOfContact: (contactId) => chatIdsByContact.get(contactId) ?? [],
  };
}

/** One end of a range on the type's time field; `at` is `toISOString()` text, comparable with stored times. */
export interface TimeBound {
  at: string;
  inclusive: boolean;
}

export interface CompiledReportFilter<T extends ReportType> {
  /** The bound on the type's time field from its date filters: the worker's key condition. */
  range: { lower?: TimeBound; upper?: TimeBound };
  /** The lookups `keep` makes; the worker prefetches only these. */
  joins: { chatById: boolean; contactsOfChat: boolean; chatsOfContact: boolean };
  /** True when the record passes every filter; it re-checks `range` too, so it is correct on its own. */
  keep(record: RecordOf<T>, join: JoinView): boolean;
}

type Check<R> = (record: R, join: JoinView) => boolean;
type Joins = CompiledReportFilter<ReportType>['joins'];
interface Compiled<R> {
  checks: (Check<R> | undefined)[];
  joins?: Partial<Joins>;
}

const nonEmpty = (values: readonly unknown[] | undefined) => (values?.length ?? 0) > 0;
const isSet = (value: unknown) => value !== undefined && value !== null && value !== '';
const fold = (text: string) => text.normalize('NFC').toLowerCase();
const digitsOf = (text: string) => text.replace(/\D/g, '');

/** Boolean filter: keeps records whose derived property equals the wanted value. */
const is = <R>(want: boolean | undefined, derive: Check<R>): Check<R> | undefined =>
  want === undefined ? undefined : (record, join) => derive(record, join) === want;
const equals = <R>(want: string | undefined, value: (record: R) => string | undefined): Check<R> | undefined =>
  want === undefined ? undefined : (record) => value(record) === want;
const inList = <R>(list: readonly string[] | undefined, value: (record: R) => string | undefined) => {
  if (!nonEmpty(list)) return undefined;
  const wanted = new Set(list);
  return (record: R) => {
    const actual = value(record);
    return actual !== undefined && wanted.has(actual);
  };
};
const overlaps = <R>(list: readonly string[] | undefined, values: (record: R) => readonly string[] | undefined) => {
  if (!nonEmpty(list)) return undefined;
  const wanted = new Set(list);
  return (record: R) => (values(record) ?? []).some((value) => wanted.has(value));
};
const containsAll = <R>(list: readonly string[] | undefined, values: (record: R) => readonly string[] | undefined) =>
  nonEmpty(list) ? (record: R) => list!.every((value) => (values(record) ?? []).includes(value)) : undefined;

interface Word {
  text: string;
  /** Only a word holding a digit can match a phone field (§8). */
  digits?: string;
  /** The ticket number a `#123` / `123` word names. */
  ticketNumber?: string;
}

/** Searched fields: text compared case-insensitively, phones by their digits only. */
interface Haystack {
  texts: (string | undefined)[];
  phones?: (string | undefined)[];
}

/** The words of a search; undefined when there are none (an absent or blank query filters nothing). */
function wordsOf(query: string | undefined): Word[] | undefined {
  const words = (query ?? '').split(/\s+/).filter(Boolean);
  if (words.length === 0) return undefined;
  return words.map((word) => ({
    text: fold(word),
    digits: /\d/.test(word) ? digitsOf(word) : undefined,
    ticketNumber: /^#?\d+$/.test(word) ? digitsOf(word).replace(/^0+(?=\d)/, '') : undefined,
  }));
}

/** Per word, whether it matches some field; prepared once per record. */
function matcher(haystack: Haystack): (word: Word) => boolean {
  const texts = haystack.texts.filter((text) => text !== undefined).map(fold);
  const phones = (haystack.phones ?? []).filter((phone) => phone !== undefined).map(digitsOf);
  return (word) =>
    texts.some((text) => text.includes(word.text)) ||
    (word.digits !== undefined && phones.some((phone) => phone.includes(word.digits!)));
}

/** Several words match when every word matches some searched field (§8). */
const matchesAll = (words: Word[], haystack: Haystack) => words.every(matcher(haystack));

const contactMatches = (words: Word[], withEmail: boolean) => (contact: ContactRecord) =>
  matchesAll(words, { texts: [contact.name, withEmail ? contact.email : undefined], phones: [contact.phone] });

/** Text form of a rule operand: strings as they are, anything else as canonical JSON. */
const textOf = (value: unknown) => fold(typeof value === 'string' ? value : canonicalJson(value));

/** Numeric for two numbers, by instant for two RFC 3339 strings (dates are midnight UTC), else none. */
function order(a: unknown, b: unknown): number | undefined {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a !== 'string' || typeof b !== 'string') return undefined;
  const [x, y] = [instantOf(a), instantOf(b)];
  return x === undefined || y === undefined ? undefined : x - y;
}

function equal(a: unknown, b: unknown): boolean {
  const comparison = order(a, b);
  return comparison === undefined ? textOf(a) === textOf(b) : comparison === 0;
}

function ruleHolds(rule: ReportRule, object: Record<string, unknown>): boolean {
  const present = Object.hasOwn(object, rule.field) && object[rule.field] !== undefined;
  const actual = object[rule.field];
  switch (rule.operator) {
    case 'exists':
      return present;
    case 'notExists':
      return !present;
    case 'eq':
      return present && equal(actual, rule.value);
    case 'neq':
      return !present || !equal(actual, rule.value);
    case 'contains':
      return present && textOf(actual).includes(textOf(rule.value));
  }
  const comparison = present ? order(actual, rule.value) : undefined;
  if (comparison === undefined) return false;
  return { gt: comparison > 0, gte: comparison >= 0, lt: comparison < 0, lte: comparison <= 0 }[rule.operator];
}

/** Rules filter: all rules hold over the record's object. Stored filters were validated, so bad rules are a bug. */
function rules<R>(text: string | undefined, object: (record: R) => Record<string, unknown>): Check<R> | undefined {
  if (text === undefined) return undefined;
  const parsed = parseRules(text);
  if (!parsed.ok) throw new Error(`invalid rules filter: ${parsed.problems.join('; ')}`);
  return (record) => parsed.rules.every((rule) => ruleHolds(rule, object(record) ?? {}));
}

type Filters<T extends ReportType> = Partial<ReportFilters<T>>;

const COMPILERS: { [T in ReportType]: (filters: Filters<T>) => Compiled<RecordTypes[T]> } = {
  CHAT: (f) => {
    const search = wordsOf(f.search);
    const contactSearch = wordsOf(f.chatContactSearch);
    return {
      joins: { contactsOfChat: search !== undefined || contactSearch !== undefined },
      checks: [
        is(f.isArchived, (chat) => chat.isArchived),
        is(f.isResolved ?? false, (chat) => chat.isResolved),
        is(f.isHighPriority, (chat) => chat.isHighPriority),
        is(f.isBotHandled, (chat) => chat.autopilot || chat.botJourneyStatus === 'ACTIVE'),
        is(f.isUnanswered, (chat) => chat.lastMessageFrom === 'GUEST'),
        is(f.isAssigned, (chat) => nonEmpty(chat.assignedUserIds) || nonEmpty(chat.assignedTeamIds)),
        is(f.hasActiveAgentTransfer, (chat) => chat.botJourneyStatus === 'AGENT_TRANSFERRED'),
        is(
          f.hasClosedBotSession,
          (chat) => chat.botJourneyStatus === 'CLOSED' || chat.botJourneyStatus === 'COMPLETED',
        ),
        overlaps(f.assignedToUserIds, (chat) => chat.assignedUserIds),
        overlaps(f.assignedToTeamIds, (chat) => chat.assignedTeamIds),
        is(f.hasPrimaryAssignee, (chat) => isSet(chat.primaryAssigneeUserId)),
        is(f.hasNoPrimaryAssignee, (chat) => !isSet(chat.primaryAssigneeUserId)),
        is(f.hasContacts, (chat) => nonEmpty(chat.contactIds)),
        contactSearch && ((chat, join) => join.contactsOfChat(chat.chatId).some(contactMatches(contactSearch, false))),
        overlaps(f.stateMachineIds, (chat) => chat.stateMachineIds),
        overlaps(f.currentStateIds, (chat) => chat.currentStateIds),
        is(f.hasStateMachines, (chat) => nonEmpty(chat.stateMachineIds)),
        search &&
          ((chat, join) =>
            matchesAll(search, {
              texts: [chat.name, ...(chat.externalItems ?? []), ...join.contactsOfChat(chat.chatId).map((c) => c.name)],
            })),
        equals(f.chatType, (chat) => chat.chatType),
        inList(f.channelIds, (chat) => chat.channelId),
        overlaps(f.labelIds, (chat) => chat.labelIds),
        is(f.hasLabels, (chat) => nonEmpty(chat.labelIds)),
        containsAll(f.allLabelIds, (chat) => chat.labelIds),
      ],
    };
  },
  CONTACT: (f) => {
    const search = wordsOf(f.contactSearch);
    return {
      joins: { chatsOfContact: f.contactHasChats !== undefined },
      checks: [
        search && contactMatches(search, true),
        overlaps(f.contactChannelIds, (contact) => contact.channelIds),
        is(f.contactHasChats, (contact, join) => join.chatIdsOfContact(contact.contactId).length > 0),
        inList(f.contactCreatedByUserIds, (contact) => contact.createdByUserId),
        rules(f.contactCustomFieldRules, (contact) => contact.customFields),
      ],
    };
  },
  TICKET: (f) => {
    const search = wordsOf(f.ticketSearch);
    return {
      joins: { chatById: search !== undefined },
      checks: [
        is(f.ticketIsResolved, (ticket) => ticket.isResolved),
        inList(f.ticketPriorityLevels, (ticket) => ticket.priority),
        overlaps(f.ticketAssignedToUserIds, (ticket) => ticket.assignedUserIds),
        inList(f.ticketCreatedByUserIds, (ticket) => ticket.createdByUserId),
        inList(f.ticketMachineIds, (ticket) => ticket.ticketMachineId),
        search &&
          ((ticket, join) => {
            const chatName = ticket.chatId === undefined ? undefined : join.chat(ticket.chatId)?.name;
            const matches = matcher({ texts: [ticket.remarks, chatName, ...(ticket.issueNames ?? [])] });
            return search.every((word) => word.ticketNumber === String(ticket.number) || matches(word));
          }),
      ],
    };
  },
  CALL_LOG: (f) => {
    const phoneDigits = f.callPhoneSearch === undefined ? undefined : digitsOf(f.callPhoneSearch);
    const hangupSearch = wordsOf(f.callHangupCauseSearch);
    const contactSearch = wordsOf(f.callContactSearch);
    const { callMinDurationSeconds: min, callMaxDurationSeconds: max } = f;
    return {
      joins: {
        chatById: phoneDigits !== undefined || contactSearch !== undefined,
        contactsOfChat: contactSearch !== undefined,
      },
      checks: [
        equals(f.callDirection, (call) => call.direction),
        inList(f.callStatuses, (call) => call.status),
        inList(f.callAgentUserIds, (call) => call.agentUserId),
        equals(f.callAccountId, (call) => call.callingAccountId),
        // The whole query's digits, so `+49 151 2345` finds the number however it is spaced.
        phoneDigits === undefined
          ? undefined
          : (call, join) => {
              const chat = call.chatId === undefined ? undefined : join.chat(call.chatId);
              return [call.callerNumber, call.calledNumber, chat?.externalChatId].some(
                (phone) => phone !== undefined && digitsOf(phone).includes(phoneDigits),
              );
            },
        is(f.callHasChat, (call) => isSet(call.chatId)),
        is(f.callHasRecording, (call) => isSet(call.recordingUrl)),
        min === undefined ? undefined : (call) => call.talkDurationSeconds >= min,
        max === undefined ? undefined : (call) => call.talkDurationSeconds <= max,
        hangupSearch && ((call) => matchesAll(hangupSearch, { texts: [call.hangupCause] })),
        contactSearch &&
          ((call, join) =>
            call.chatId !== undefined && join.contactsOfChat(call.chatId).some(contactMatches(contactSearch, true))),
      ],
    };
  },
  GOAL: (f) => ({
    checks: [
      inList(f.goalIds, (goal) => goal.goalId),
      inList(f.goalChannelIds, (goal) => goal.channelId),
      rules(f.goalTrackerValueRules, (goal) => goal.trackerValues),
    ],
  }),
  BOOKING: (f) => ({
    checks: [
      inList(f.bookingTypes, (booking) => booking.type),
      inList(f.bookingStatuses, (booking) => booking.status),
      inList(f.bookingAgentUserIds, (booking) => booking.agentUserId),
      equals(f.bookingContactId, (booking) => booking.contactId),
    ],
  }),
  FOLLOW_UPS: (f) => ({
    checks: [
      inList(f.followUpAgentUserIds, (followUp) => followUp.agentUserId),
      inList(f.followUpStatuses, (followUp) => followUp.status),
      equals(f.followUpKind, (followUp) => followUp.kind),
    ],
  }),
  SURVEY_RESPONSES: (f) => ({
    checks: [
      inList(f.surveyFormIds, (response) => response.surveyFormId),
      inList(f.surveyStatuses, (response) => response.status),
      inList(f.surveySources, (response) => response.source),
      equals(f.surveyChannel, (response) => response.channel),
    ],
  }),
  FLOW_RESPONSES: (f) => ({
    checks: [inList(f.flowIds, (response) => response.flowId), inList(f.flowSources, (response) => response.source)],
  }),
};

/** The date filters of each type: [lower, upper, inclusive]. After/Before are strict, OnOrAfter/OnOrBefore not. */
const DATE_FILTERS = {
  CHAT: ['updatedAfter', 'updatedBefore', false],
  CONTACT: ['contactCreatedAfter', 'contactCreatedBefore', false],
  TICKET: ['ticketCreatedAfter', 'ticketCreatedBefore', false],
  CALL_LOG: ['callInitiatedAfter', 'callInitiatedBefore', false],
  GOAL: ['goalRecordedAfter', 'goalRecordedBefore', false],
  BOOKING: ['bookingStartsOnOrAfter', 'bookingStartsOnOrBefore', true],
  FOLLOW_UPS: ['followUpDueOnOrAfter', 'followUpDueOnOrBefore', true],
  SURVEY_RESPONSES: ['surveyStartedOnOrAfter', 'surveyStartedOnOrBefore', true],
  FLOW_RESPONSES: ['flowRespondedOnOrAfter', 'flowRespondedOnOrBefore', true],
} as const satisfies { [T in ReportType]: readonly [keyof ReportFilters<T>, keyof ReportFilters<T>, boolean] };

const LAST_MS_OF_DAY = 86_400_000 - 1;

/**
 * Resolves a date filter to a bound on millisecond-precision stored times. A bare date is midnight UTC at the start
 * of its day, except as an `…OnOrBefore` bound, where it covers the whole day. Digits below a millisecond round
 * inwards: a stored time is after `…00.0005Z` exactly when it is at or after `…00.001Z`.
 */
export function resolveDateBound(text: string, side: 'lower' | 'upper', inclusive: boolean): TimeBound {
  const day = parseDate(text);
  if (day !== undefined) return { at: isoOf(side === 'upper' && inclusive ? day + LAST_MS_OF_DAY : day), inclusive };
  const parsed = parseDateTime(text);
  if (parsed === undefined) throw new Error(`not a date filter: ${text}`);
  if (!parsed.truncated) return { at: isoOf(parsed.ms), inclusive };
  return { at: isoOf(side === 'lower' ? parsed.ms + 1 : parsed.ms), inclusive: true };
}

/**
 * Compiles the (validated, stored) filters of one report type: the time range for the key condition, the joins to
 * prefetch, and `keep` for every filter of CONTRACT §8. Omitted filters and empty arrays filter nothing, except
 * `isResolved`, whose omission keeps only open chats.
 */
export function compileReportFilter<T extends ReportType>(
  reportType: T,
  filters: Partial<ReportFilters<T>>,
): CompiledReportFilter<T> {
  const compiled = (COMPILERS[reportType] as (filters: Filters<T>) => Compiled<RecordOf<T>>)(filters);
  const [lowerKey, upperKey, inclusive] = DATE_FILTERS[reportType];
  const dates = filters as Record<string, string | undefined>;
  const lowerText = dates[lowerKey];
  const upperText = dates[upperKey];
  const range = {
    ...(lowerText === undefined ? {} : { lower: resolveDateBound(lowerText, 'lower', inclusive) }),
    ...(upperText === undefined ? {} : { upper: resolveDateBound(upperText, 'upper', inclusive) }),
  };
  const lower = range.lower && { ms: Date.parse(range.lower.at), inclusive: range.lower.inclusive };
  const upper = range.upper && { ms: Date.parse(range.upper.at), inclusive: range.upper.inclusive };
  const checks = compiled.checks.filter((check) => check !== undefined);
  return {
    range,
    joins: { chatById: false, contactsOfChat: false, chatsOfContact: false, ...compiled.joins },
    keep(record, join) {
      const at = Date.parse(recordTime(reportType, record));
      if (Number.isNaN(at)) return false;
      if (lower && (lower.inclusive ? at < lower.ms : at <= lower.ms)) return false;
      if (upper && (upper.inclusive ? at > upper.ms : at >= upper.ms)) return false;
      return checks.every((check) => check(record, join));
    },
  };
}

/**
 * The report order (CONTRACT §6): newest first by the type's time field, ties by id descending in code-unit order.
 * For `Array.prototype.sort`.
 */
export function compareForReport<T extends ReportType>(reportType: T, a: RecordOf<T>, b: RecordOf<T>): number {
  const byTime = Date.parse(recordTime(reportType, b)) - Date.parse(recordTime(reportType, a));
  if (byTime !== 0) return byTime;
  const [idA, idB] = [recordId(reportType, a), recordId(reportType, b)];
  return idA < idB ? 1 : idA > idB ? -1 : 0;
}
