import { ADMINS } from '#shared/domain/auth/roles';
import { ListQuery } from '#shared/schemas/common';
import {
  CreateReportScheduleBody,
  ReportScheduleParams,
  UpdateReportScheduleBody,
} from '#shared/schemas/report-schedules';
import { defineRoute } from './route.ts';

// Named rather than spread: esbuild takes a spread for a side effect (route.ts, defineRoute).
const SCHEDULE_NOT_FOUND = { description: 'SCHEDULE_NOT_FOUND' };

export const createReportSchedule = /* @__PURE__ */ defineRoute({
  operationId: 'createReportSchedule',
  method: 'POST',
  path: '/report-schedules/{organisationId}',
  fn: 'create-report-schedule',
  summary: 'Schedule a report: requested again at each occurrence (wall-clock time in an IANA zone)',
  tag: 'reports',
  auth: ADMINS,
  orgParam: 'organisationId',
  body: CreateReportScheduleBody,
  idempotent: true,
  headers: [
    { name: 'Idempotency-Key', description: '1–255 printable ASCII characters; a retry replays the first answer' },
  ],
  responses: {
    201: {
      description: 'The schedule, active (Location: the schedule)',
      schema: 'ReportScheduleView',
      headers: ['Location'],
    },
    409: { description: 'IDEMPOTENCY_KEY_IN_USE (Retry-After)', headers: ['Retry-After'] },
    422: {
      description:
        'SCHEDULE_LIMIT_REACHED (the organisation has REPORT_SCHEDULE_LIMIT schedules, 20 by default) or ' +
        'IDEMPOTENCY_KEY_REUSED',
    },
  },
});

export const listReportSchedules = /* @__PURE__ */ defineRoute({
  operationId: 'listReportSchedules',
  method: 'GET',
  path: '/report-schedules/{organisationId}',
  fn: 'list-report-schedules',
  summary: 'Report schedules, oldest first',
  tag: 'reports',
  auth: ADMINS,
  orgParam: 'organisationId',
  query: ListQuery,
  responses: { 200: { description: 'Report schedules', schema: 'ReportScheduleList' } },
});

export const getReportSchedule = /* @__PURE__ */ defineRoute({
  operationId: 'getReportSchedule',
  method: 'GET',
  path: '/report-schedules/{organisationId}/{scheduleId}',
  fn: 'get-report-schedule',
  summary: 'One report schedule',
  tag: 'reports',
  auth: ADMINS,
  orgParam: 'organisationId',
  params: ReportScheduleParams,
  responses: { 200: { description: 'The schedule', schema: 'ReportScheduleView' }, 404: SCHEDULE_NOT_FOUND },
});

export const updateReportSchedule = /* @__PURE__ */ defineRoute({
  operationId: 'updateReportSchedule',
  method: 'PATCH',
  path: '/report-schedules/{organisationId}/{scheduleId}',
  fn: 'update-report-schedule',
  summary: 'Pause or resume a schedule, or change its timing, filters, period, format or compression',
  tag: 'reports',
  auth: ADMINS,
  orgParam: 'organisationId',
  params: ReportScheduleParams,
  body: UpdateReportScheduleBody,
  responses: {
    200: { description: 'The schedule', schema: 'ReportScheduleView' },
    404: SCHEDULE_NOT_FOUND,
    409: {
      description: 'SCHEDULE_CONFLICT: the schedule kept changing under this request (the sweeper, or another change)',
      headers: ['Retry-After'],
    },
  },
});

export const deleteReportSchedule = /* @__PURE__ */ defineRoute({
  operationId: 'deleteReportSchedule',
  method: 'DELETE',
  path: '/report-schedules/{organisationId}/{scheduleId}',
  fn: 'delete-report-schedule',
  summary: 'Delete a schedule; reports it requested stay',
  tag: 'reports',
  auth: ADMINS,
  orgParam: 'organisationId',
  params: ReportScheduleParams,
  responses: { 204: { description: 'Deleted' }, 404: SCHEDULE_NOT_FOUND },
});
