import * as v from 'valibot';
import type { ReportType } from '#shared/domain/reports/records';
import { DATE_FILTERS, SCHEDULE_STATUSES } from '#shared/domain/reports/schedule';
import { isTimeZone, SCHEDULE_EVERY } from '#shared/domain/reports/schedule-time';
import { ValidationError } from '#shared/errors';
import { toFieldErrors } from '#shared/http/validation';
import { NextCursor, Timestamp } from './common.ts';
import {
  filtersOfEveryType,
  normaliseReportFilters,
  REPORT_FILTERS,
  ReportCompressionField,
  ReportFormatField,
  type ReportRequestBody,
} from './reports.ts';

/** Each top-level schema is built through this, so a bundle keeps only the schemas it uses (see common.ts). */
/* @__NO_SIDE_EFFECTS__ */ const schema = <T>(build: () => T): T => build();

/**
 * `schedule`: when it runs, in wall-clock time of an IANA zone (CONTRACT §23). `dayOfWeek` is required for a weekly
 * schedule and refused otherwise; `dayOfMonth` likewise for a monthly one.
 */
export const ScheduleTiming = schema(() =>
  v.pipe(
    v.strictObject({
      every: v.picklist(SCHEDULE_EVERY, 'must be one of day, week, month'),
      at: v.pipe(
        v.string(),
        v.regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a 24-hour time HH:MM, such as 07:30'),
        v.description('Local time of day, HH:MM (24-hour), in `timezone`'),
      ),
      timezone: v.pipe(
        v.string(),
        v.maxLength(64, 'must be an IANA time zone such as Europe/Berlin'),
        v.check(isTimeZone, 'must be an IANA time zone such as Europe/Berlin'),
        v.description('An IANA time zone, e.g. Europe/Berlin'),
      ),
      dayOfWeek: v.optional(
        v.pipe(
          v.number(),
          v.integer('must be an integer from 1 (Monday) to 7 (Sunday)'),
          v.minValue(1, 'must be an integer from 1 (Monday) to 7 (Sunday)'),
          v.maxValue(7, 'must be an integer from 1 (Monday) to 7 (Sunday)'),
          v.description('Weekly: ISO weekday, 1 = Monday … 7 = Sunday'),
        ),
      ),
      dayOfMonth: v.optional(
        v.pipe(
          v.number(),
          v.integer('must be an integer from 1 to 28'),
          v.minValue(1, 'must be an integer from 1 to 28'),
          v.maxValue(28, 'must be an integer from 1 to 28'),
          v.description('Monthly: day of the month, 1–28'),
        ),
      ),
    }),
    v.forward(
      v.check(
        (timing) => timing.every !== 'week' || timing.dayOfWeek !== undefined,
        'is required for a weekly schedule',
      ),
      ['dayOfWeek'],
    ),
    v.forward(
      v.check((timing) => timing.every === 'week' || timing.dayOfWeek === undefined, 'is only for a weekly schedule'),
      ['dayOfWeek'],
    ),
    v.forward(
      v.check(
        (timing) => timing.every !== 'month' || timing.dayOfMonth !== undefined,
        'is required for a monthly schedule',
      ),
      ['dayOfMonth'],
    ),
    v.forward(
      v.check(
        (timing) => timing.every === 'month' || timing.dayOfMonth === undefined,
        'is only for a monthly schedule',
      ),
      ['dayOfMonth'],
    ),
  ),
);

const Period = schema(() =>
  v.pipe(
    v.literal('previous'),
    v.description(
      "Sets the type's date filters to the previous whole period in the zone: yesterday, last week (Monday–Sunday), " +
        'last month',
    ),
  ),
);

const periodConflict = 'is set by period "previous"; leave it out';

/** With `period: "previous"` the type's own date filters are refused: the period sets them. */
function withoutPeriodConflicts<S extends v.GenericSchema<{ period?: 'previous' }>>(type: ReportType, object: S) {
  const { from, to } = DATE_FILTERS[type];
  const free = (name: string) => (body: v.InferOutput<S>) =>
    body.period === undefined || (body as Record<string, unknown>)[name] === undefined;
  return v.pipe(
    object,
    v.forward(v.check(free(from), periodConflict), [from] as never),
    v.forward(v.check(free(to), periodConflict), [to] as never),
  );
}

/**
 * `POST /report-schedules/:organisationId` (CONTRACT §23): a report request (flat: `reportType` beside that type's
 * filters, `format`, `compression`) with its `schedule` and an optional `period`.
 */
export const CreateReportScheduleBody = schema(() =>
  v.variant(
    'reportType',
    filtersOfEveryType().map((filters) =>
      withoutPeriodConflicts(
        filters.entries.reportType.literal,
        v.strictObject({
          ...filters.entries,
          format: v.optional(ReportFormatField),
          compression: v.optional(ReportCompressionField),
          schedule: ScheduleTiming,
          period: v.optional(Period),
        }),
      ),
    ),
    'must be a report type',
  ),
);
export type CreateReportScheduleBody = v.InferOutput<typeof CreateReportScheduleBody>;

/** A validated creation body as the use case takes it. */
export function scheduleRequestOf(body: CreateReportScheduleBody) {
  const { schedule, period, format, compression, ...request } = body;
  return {
    reportType: request.reportType,
    filters: normaliseReportFilters(request as ReportRequestBody) as Record<string, unknown>,
    schedule,
    period,
    format,
    compression,
  };
}

/**
 * The properties of a report request that are not filters: a schedule's `reportType` is fixed, and `format` and
 * `compression` are top-level properties of the schedule (CONTRACT §23), as in its creation.
 */
const NOT_FILTERS: Record<string, string> = {
  reportType: "is not a filter: a schedule's reportType cannot change",
  format: 'is not a filter: format is a top-level property of the schedule',
  compression: 'is not a filter: compression is a top-level property of the schedule',
};

/**
 * `PATCH /report-schedules/:organisationId/:scheduleId`: `filters` replaces the schedule's filters as a whole (those of
 * its reportType, CONTRACT §8; any other property → 400 at its pointer under /filters, `format` and `compression`
 * included: they are top-level here as in the creation); `period: null` drops the period.
 */
export const UpdateReportScheduleBody = schema(() =>
  v.strictObject({
    status: v.optional(v.picklist(SCHEDULE_STATUSES, 'must be active or paused')),
    schedule: v.optional(ScheduleTiming),
    filters: v.optional(
      v.pipe(
        v.record(
          v.pipe(
            v.string(),
            v.rawCheck(({ dataset, addIssue }) => {
              if (dataset.typed && Object.hasOwn(NOT_FILTERS, dataset.value)) {
                addIssue({ message: NOT_FILTERS[dataset.value]! });
              }
            }),
          ),
          v.unknown(),
        ),
        v.description(
          "The schedule's report type's filters (CONTRACT §8), replacing the current ones; not reportType, format or " +
            'compression (top-level properties)',
        ),
      ),
    ),
    period: v.optional(v.nullable(Period)),
    format: v.optional(ReportFormatField),
    compression: v.optional(ReportCompressionField),
  }),
);
export type UpdateReportScheduleBody = v.InferOutput<typeof UpdateReportScheduleBody>;

/**
 * A schedule's new filters, checked against its report type (and its period): the normalised filters, or 400 with a
 * pointer under `/filters`.
 */
export function parseScheduleFilters(
  reportType: ReportType,
  filters: Record<string, unknown>,
  period: 'previous' | undefined,
): Record<string, unknown> {
  const notFilters = Object.keys(filters).filter((name) => Object.hasOwn(NOT_FILTERS, name));
  if (notFilters.length > 0) {
    throw new ValidationError(notFilters.map((name) => ({ pointer: `/filters/${name}`, message: NOT_FILTERS[name]! })));
  }
  const typeSchema = REPORT_FILTERS[reportType];
  const result = v.safeParse(typeSchema, { ...filters, reportType });
  if (!result.success) throw new ValidationError(toFieldErrors(result.issues, '/filters'));
  const { from, to } = DATE_FILTERS[reportType];
  const conflicts = period ? [from, to].filter((name) => filters[name] !== undefined) : [];
  if (conflicts.length > 0) {
    throw new ValidationError(conflicts.map((name) => ({ pointer: `/filters/${name}`, message: periodConflict })));
  }
  return normaliseReportFilters(result.output as ReportRequestBody) as Record<string, unknown>;
}

export const ReportScheduleParams = schema(() =>
  v.object({ scheduleId: v.pipe(v.string(), v.minLength(1), v.maxLength(128)) }),
);

/** The fields of a schedule every type has. */
const scheduleFields = () => ({
  scheduleId: v.pipe(v.string(), v.description('rsc_…')),
  organisationId: v.string(),
  format: v.optional(ReportFormatField),
  compression: v.optional(ReportCompressionField),
  schedule: ScheduleTiming,
  period: v.optional(Period),
  status: v.picklist(SCHEDULE_STATUSES),
  nextRunAt: v.pipe(
    v.nullable(Timestamp),
    v.description('The next occurrence (an overdue one waiting for the 5-minute window included); null while paused'),
  ),
  lastRunAt: v.optional(v.pipe(Timestamp, v.description('The occurrence whose report was requested last'))),
  lastReportId: v.optional(v.pipe(v.string(), v.description('The report requested at lastRunAt'))),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/**
 * A schedule as the API shows it: one shape per `reportType`, whose `filters` are that type's (as the report view, so a
 * generated client narrows `filters` by `reportType`).
 */
export const ReportScheduleView = schema(() =>
  v.variant(
    'reportType',
    filtersOfEveryType().map((filters) =>
      v.object({
        reportType: filters.entries.reportType,
        ...scheduleFields(),
        filters: v.omit(filters, ['reportType']),
      }),
    ),
  ),
);
export const ReportScheduleList = schema(() =>
  v.object({ schedules: v.array(ReportScheduleView), nextCursor: NextCursor }),
);
