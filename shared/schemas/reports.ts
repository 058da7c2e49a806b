import * as v from 'valibot';
import {
  REPORT_COMPRESSIONS,
  REPORT_FORMATS,
  REPORT_MEDIA_TYPES,
  type ReportCompression,
  type ReportFormat,
} from '#shared/domain/reports/formats';
import { issueMessage, issuePointer } from '#shared/domain/reports/issues';
import {
  BOOKING_STATUSES,
  BOOKING_TYPES,
  CALL_DIRECTIONS,
  CALL_STATUSES,
  CHAT_TYPES,
  FLOW_SOURCES,
  FOLLOW_UP_KINDS,
  FOLLOW_UP_STATUSES,
  REPORT_TYPES,
  type ReportType,
  SURVEY_SOURCES,
  SURVEY_STATUSES,
  TICKET_PRIORITIES,
} from '#shared/domain/reports/records';
import { REPORT_STATUSES } from '#shared/domain/reports/report';
import { isDateFilterText } from '#shared/domain/reports/time';
import { lazily } from '#shared/lazily';

/** Each top-level schema is built through this, so a bundle keeps only the schemas it uses (see common.ts). */
/* @__NO_SIDE_EFFECTS__ */ const schema = <T>(build: () => T): T => build();

const codePoints = (value: string) => [...value].length;
const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  v.picklist(values, `must be one of ${values.join(', ')}`);

// Counted in code points, as JSON Schema's maxLength does; the description carries the limit into OpenAPI.
const Text = schema(() =>
  v.pipe(
    v.string(),
    v.check((value) => codePoints(value) <= 256, 'must be at most 256 characters'),
    v.description('At most 256 characters.'),
    v.metadata({ maxLength: 256 }),
  ),
);
const Id = schema(() => v.pipe(Text, v.minLength(1, 'must not be empty')));
const list = <S extends v.GenericSchema<string>>(item: S) =>
  v.pipe(v.array(item), v.maxLength(100, 'must hold at most 100 entries'));
const Ids = schema(() => list(Id));
const DateFilter = schema(() =>
  v.pipe(
    v.string(),
    v.check(isDateFilterText, 'must be an RFC 3339 date-time with Z or an offset, or a date such as 2026-11-30'),
    v.description('An RFC 3339 date-time with Z or an offset, or a date such as 2026-11-30 (UTC).'),
  ),
);
const Seconds = schema(() => v.pipe(v.number(), v.finite(), v.minValue(0, 'must be a number ≥ 0')));

/** Rule operators of the rules filters (CONTRACT §8). */
export const RULE_OPERATORS = ['eq', 'neq', 'contains', 'gt', 'gte', 'lt', 'lte', 'exists', 'notExists'] as const;
export type RuleOperator = (typeof RULE_OPERATORS)[number];

const Rule = schema(() =>
  v.pipe(
    v.strictObject({
      field: Id,
      operator: oneOf(RULE_OPERATORS),
      value: v.optional(
        v.union(
          [Text, v.number(), v.boolean(), v.null()],
          'must be a string of at most 256 characters, a number, a boolean or null',
        ),
      ),
    }),
    v.forward(
      v.check(
        (rule) => rule.value !== undefined || rule.operator === 'exists' || rule.operator === 'notExists',
        'is required unless the operator is exists or notExists',
      ),
      ['value'],
    ),
  ),
);
const Rules = schema(() =>
  v.pipe(v.array(Rule, 'must be a JSON array of rules'), v.maxLength(20, 'must hold at most 20 rules')),
);
/** One rule of `contactCustomFieldRules` / `goalTrackerValueRules`, over a top-level key. */
export type ReportRule = v.InferOutput<typeof Rule>;

/** Parses a rules filter: the rules, or the problems, each naming its place inside the JSON (`rules/2/operator`). */
export function parseRules(text: string): { ok: true; rules: ReportRule[] } | { ok: false; problems: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, problems: ['must be a JSON-encoded array of rules: the JSON is malformed'] };
  }
  const result = v.safeParse(Rules, json);
  if (result.success) return { ok: true, rules: result.output };
  return { ok: false, problems: result.issues.map((issue) => `rules${issuePointer(issue)}: ${issueMessage(issue)}`) };
}

/**
 * A JSON-encoded rules array. The 256-character limit of plain strings would not fit 20 rules, so the encoded
 * filter may be 16 KiB; each rule's field and string value keep the 256 limit.
 */
const RulesFilter = schema(() =>
  v.pipe(
    v.string(),
    v.maxLength(16_384, 'must be at most 16384 characters'),
    v.description('A JSON-encoded array of at most 20 {"field", "operator", "value"} rules, all of which must hold.'),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const parsed = parseRules(dataset.value);
      if (!parsed.ok) for (const message of parsed.problems) addIssue({ message });
    }),
  ),
);

const optional = <E extends Record<string, v.GenericSchema>>(entries: E) =>
  Object.fromEntries(Object.entries(entries).map(([key, schema]) => [key, v.optional(schema)])) as {
    [K in keyof E]: v.OptionalSchema<E[K], undefined>;
  };
/** CONTRACT §23: the optional `format` and `compression` of a report request (and of a report schedule). */
export const ReportFormatField = schema(() =>
  v.pipe(oneOf(REPORT_FORMATS), v.description('The file format; csv (the default) is the file of CONTRACT §6')),
);
export const ReportCompressionField = schema(() =>
  v.pipe(oneOf(REPORT_COMPRESSIONS), v.description('gzip compresses the file (media type application/gzip, name .gz)')),
);

/** The request's fields beside the filters (CONTRACT §23): not filters, so not in the record's `filters`. */
const FILE_FIELDS = ['format', 'compression'] as const;

const filters = <T extends ReportType, E extends v.ObjectEntries>(reportType: T, entries: E) =>
  v.strictObject({
    reportType: v.literal(reportType),
    format: v.optional(ReportFormatField),
    compression: v.optional(ReportCompressionField),
    ...entries,
  });
const flag = schema(() => v.boolean());

/**
 * The request schema of each report type (`reportType` beside that type's filters and the file fields), each built
 * when first read: the report worker validates the stored filters of its job's one type.
 */
export const REPORT_FILTERS = schema(() =>
  lazily({
    CHAT: () =>
      filters('CHAT', {
        ...optional({ isArchived: flag }),
        // The one filter with a default (§8): omitted means only open chats.
        isResolved: v.optional(v.boolean(), false),
        ...optional({
          isHighPriority: flag,
          isBotHandled: flag,
          isUnanswered: flag,
          isAssigned: flag,
          hasActiveAgentTransfer: flag,
          hasClosedBotSession: flag,
          assignedToUserIds: Ids,
          assignedToTeamIds: Ids,
          hasPrimaryAssignee: flag,
          hasNoPrimaryAssignee: flag,
          hasContacts: flag,
          chatContactSearch: Text,
          stateMachineIds: Ids,
          currentStateIds: Ids,
          hasStateMachines: flag,
          search: Text,
          chatType: oneOf(CHAT_TYPES),
          channelIds: Ids,
          updatedAfter: DateFilter,
          updatedBefore: DateFilter,
          labelIds: Ids,
          hasLabels: flag,
          allLabelIds: Ids,
        }),
      }),
    CONTACT: () =>
      filters(
        'CONTACT',
        optional({
          contactSearch: Text,
          contactChannelIds: Ids,
          contactHasChats: flag,
          contactCreatedAfter: DateFilter,
          contactCreatedBefore: DateFilter,
          contactCreatedByUserIds: Ids,
          contactCustomFieldRules: RulesFilter,
        }),
      ),
    TICKET: () =>
      filters(
        'TICKET',
        optional({
          ticketIsResolved: flag,
          ticketPriorityLevels: list(oneOf(TICKET_PRIORITIES)),
          ticketAssignedToUserIds: Ids,
          ticketCreatedByUserIds: Ids,
          ticketMachineIds: Ids,
          ticketCreatedAfter: DateFilter,
          ticketCreatedBefore: DateFilter,
          ticketSearch: Text,
        }),
      ),
    CALL_LOG: () =>
      filters(
        'CALL_LOG',
        optional({
          callDirection: oneOf(CALL_DIRECTIONS),
          callStatuses: list(oneOf(CALL_STATUSES)),
          callAgentUserIds: Ids,
          callAccountId: Id,
          callInitiatedAfter: DateFilter,
          callInitiatedBefore: DateFilter,
          callPhoneSearch: v.pipe(Text, v.regex(/\d/, 'must contain a digit')),
          callHasChat: flag,
          callHasRecording: flag,
          callMinDurationSeconds: Seconds,
          callMaxDurationSeconds: Seconds,
          callHangupCauseSearch: Text,
          callContactSearch: Text,
        }),
      ),
    GOAL: () =>
      filters(
        'GOAL',
        optional({
          goalRecordedAfter: DateFilter,
          goalRecordedBefore: DateFilter,
          goalIds: Ids,
          goalChannelIds: Ids,
          goalTrackerValueRules: RulesFilter,
        }),
      ),
    BOOKING: () =>
      filters(
        'BOOKING',
        optional({
          bookingTypes: list(oneOf(BOOKING_TYPES)),
          bookingStatuses: list(oneOf(BOOKING_STATUSES)),
          bookingAgentUserIds: Ids,
          bookingContactId: Id,
          bookingStartsOnOrAfter: DateFilter,
          bookingStartsOnOrBefore: DateFilter,
        }),
      ),
    FOLLOW_UPS: () =>
      filters(
        'FOLLOW_UPS',
        optional({
          followUpAgentUserIds: Ids,
          followUpStatuses: list(oneOf(FOLLOW_UP_STATUSES)),
          followUpKind: oneOf(FOLLOW_UP_KINDS),
          followUpDueOnOrAfter: DateFilter,
          followUpDueOnOrBefore: DateFilter,
        }),
      ),
    SURVEY_RESPONSES: () =>
      filters(
        'SURVEY_RESPONSES',
        optional({
          surveyFormIds: Ids,
          surveyStatuses: list(oneOf(SURVEY_STATUSES)),
          surveySources: list(oneOf(SURVEY_SOURCES)),
          surveyStartedOnOrAfter: DateFilter,
          surveyStartedOnOrBefore: DateFilter,
          surveyChannel: Id,
        }),
      ),
    FLOW_RESPONSES: () =>
      filters(
        'FLOW_RESPONSES',
        optional({
          flowIds: Ids,
          flowSources: list(oneOf(FLOW_SOURCES)),
          flowRespondedOnOrAfter: DateFilter,
          flowRespondedOnOrBefore: DateFilter,
        }),
      ),
  }),
);

export const ChatReportFilters = schema(() => REPORT_FILTERS.CHAT);
export const ContactReportFilters = schema(() => REPORT_FILTERS.CONTACT);
export const TicketReportFilters = schema(() => REPORT_FILTERS.TICKET);
export const CallLogReportFilters = schema(() => REPORT_FILTERS.CALL_LOG);
export const GoalReportFilters = schema(() => REPORT_FILTERS.GOAL);
export const BookingReportFilters = schema(() => REPORT_FILTERS.BOOKING);
export const FollowUpReportFilters = schema(() => REPORT_FILTERS.FOLLOW_UPS);
export const SurveyResponseReportFilters = schema(() => REPORT_FILTERS.SURVEY_RESPONSES);
export const FlowResponseReportFilters = schema(() => REPORT_FILTERS.FLOW_RESPONSES);

/** The filters of each report type, in REPORT_TYPES order: the request's shapes and the report view's. */
export function filtersOfEveryType() {
  return [
    ChatReportFilters,
    ContactReportFilters,
    TicketReportFilters,
    CallLogReportFilters,
    GoalReportFilters,
    BookingReportFilters,
    FollowUpReportFilters,
    SurveyResponseReportFilters,
    FlowResponseReportFilters,
  ] as const;
}

/**
 * `POST /reports/:organisationId` (CONTRACT §6, §8): flat, `reportType` beside the filters of that type only.
 * A filter of another type or any unknown property is an issue at that property's pointer.
 */
export const ReportRequestBody = schema(() =>
  v.variant('reportType', filtersOfEveryType(), `must be one of ${REPORT_TYPES.join(', ')}`),
);
export type ReportRequestBody = v.InferOutput<typeof ReportRequestBody>;

/** The filters of one report type, as validated and as stored on the report record. */
export type ReportFilters<T extends ReportType = ReportType> = T extends ReportType
  ? Omit<Extract<ReportRequestBody, { reportType: T }>, 'reportType' | (typeof FILE_FIELDS)[number]>
  : never;

/**
 * The filters as stored on the report record: every filter the caller gave, in schema order, defaults included
 * (`isResolved: false`), empty arrays dropped (they mean no filter). Dates are kept exactly as sent: a bare date
 * or an RFC 3339 date-time with an offset already means one thing under §8, and keeping the text lets a caller
 * resubmit `filters` unchanged. `compileReportFilter` resolves them to instants (a bare date in an `…OnOrBefore`
 * filter covers the whole day), always the same way whatever the clock or time zone.
 */
export function normaliseReportFilters<B extends ReportRequestBody>(body: B): ReportFilters<B['reportType']> {
  const { reportType: _, format: _format, compression: _compression, ...filters } = body;
  return Object.fromEntries(
    Object.entries(filters).filter(([, value]) => value !== undefined && !(Array.isArray(value) && value.length === 0)),
  ) as ReportFilters<B['reportType']>;
}

/** A validated request body as the report use case takes it: its type, its stored filters, its file's format. */
export function reportRequestOf(body: ReportRequestBody): {
  reportType: string;
  filters: Record<string, unknown>;
  format?: ReportFormat;
  compression?: ReportCompression;
} {
  return {
    reportType: body.reportType,
    filters: normaliseReportFilters(body) as Record<string, unknown>,
    ...(body.format ? { format: body.format } : {}),
    ...(body.compression ? { compression: body.compression } : {}),
  };
}

const Count = schema(() => v.pipe(v.number(), v.integer(), v.minValue(0)));
const Timestamp = schema(() => v.pipe(v.string(), v.isoTimestamp()));

/** The fields of a report every type has (CONTRACT §6). */
const reportFields = () => ({
  reportId: v.string(),
  organisationId: v.string(),
  status: v.picklist(REPORT_STATUSES),
  requestedAt: Timestamp,
  requestedBy: v.pipe(
    v.string(),
    v.description('The client id of the token that requested it, or the report schedule that did (rsc_…)'),
  ),
  scheduleId: v.optional(v.pipe(v.string(), v.description('The report schedule that requested it (CONTRACT §23)'))),
  startedAt: v.optional(v.pipe(Timestamp, v.description('When a worker started it'))),
  completedAt: v.optional(v.pipe(Timestamp, v.description('When it completed or failed'))),
  rowCount: v.optional(v.pipe(Count, v.description('Data rows in the file (COMPLETED)'))),
  sizeBytes: v.optional(v.pipe(Count, v.description('Size of the file (COMPLETED)'))),
  truncatedCells: v.optional(
    v.pipe(
      Count,
      v.description(
        'Cells cut to fit (COMPLETED): an XLSX text over 32,767 characters is cut and ends with "…[truncated]"; always 0 for CSV and JSONL',
      ),
    ),
  ),
  format: v.pipe(
    v.picklist(REPORT_MEDIA_TYPES),
    v.description(
      "The stored file's media type: the requested format's (text/csv by default), or application/gzip when compressed",
    ),
  ),
  expiresAt: v.optional(v.pipe(Timestamp, v.description('When the file is deleted (COMPLETED); EXPIRED after'))),
  error: v.optional(v.object({ code: v.string(), message: v.string() })),
});

/**
 * A report as the API shows it (CONTRACT §6): one shape per `reportType`, whose `filters` are that type's, so that a
 * generated client narrows `filters` by `reportType` (CONTRACT §19: a oneOf whose shapes each hold a reportType const).
 */
export const ReportView = schema(() =>
  v.variant(
    'reportType',
    filtersOfEveryType().map((filters) =>
      v.object({
        reportType: filters.entries.reportType,
        ...reportFields(),
        filters: v.omit(filters, ['reportType', ...FILE_FIELDS]),
      }),
    ),
  ),
);
export const ReportList = schema(() => v.object({ reports: v.array(ReportView), nextCursor: v.nullable(v.string()) }));
export const ReportDownload = schema(() =>
  v.object({
    url: v.pipe(
      v.string(),
      v.url(),
      v.description(
        "Pre-signed GET URL of the report's file (its format's Content-Type, a Content-Disposition file name)",
      ),
    ),
    expiresAt: Timestamp,
  }),
);
