import * as v from 'valibot';
import { ADMINS } from '#shared/domain/auth/roles';
import { REPORT_TYPES } from '#shared/domain/reports/records';
import { REPORT_STATUSES } from '#shared/domain/reports/report';
import { BooleanQuery, ListQuery } from '#shared/schemas/common';
import { ReportRequestBody } from '#shared/schemas/reports';
import { defineRoute } from './route.ts';

/** Built like the schemas of shared/schemas/ (common.ts says why), so a bundle keeps only those it uses. */
/* @__NO_SIDE_EFFECTS__ */ const schema = <T>(build: () => T): T => build();

export const ReportParams = schema(() => v.object({ reportId: v.pipe(v.string(), v.minLength(1), v.maxLength(128)) }));
const ReportListQuery = schema(() =>
  v.strictObject({
    ...ListQuery.entries,
    reportType: v.optional(v.picklist(REPORT_TYPES, 'must be a report type')),
    status: v.optional(v.picklist(REPORT_STATUSES, 'must be a report status')),
  }),
);
const DownloadQuery = schema(() => v.strictObject({ redirect: v.optional(BooleanQuery) }));

export const requestReport = /* @__PURE__ */ defineRoute({
  operationId: 'requestReport',
  method: 'POST',
  path: '/reports/{organisationId}',
  fn: 'request-report',
  summary:
    'Request a report of one of nine types as CSV, XLSX or JSONL (asynchronous; one per type per organisation per 5 minutes)',
  tag: 'reports',
  auth: ADMINS,
  orgParam: 'organisationId',
  body: ReportRequestBody,
  idempotent: true,
  headers: [
    { name: 'Idempotency-Key', description: '1–255 printable ASCII characters; a retry replays the first answer' },
  ],
  responses: {
    202: { description: 'The report, PENDING (Location: the report)', schema: 'ReportView', headers: ['Location'] },
    409: {
      description: 'REPORT_RATE_LIMITED with the blocking reportId and retryAfterSeconds; IDEMPOTENCY_KEY_IN_USE',
      headers: ['Retry-After'],
    },
    422: { description: 'IDEMPOTENCY_KEY_REUSED' },
  },
});

export const listReports = /* @__PURE__ */ defineRoute({
  operationId: 'listReports',
  method: 'GET',
  path: '/reports/{organisationId}',
  fn: 'list-reports',
  summary: 'Reports, newest first',
  tag: 'reports',
  auth: ADMINS,
  orgParam: 'organisationId',
  query: ReportListQuery,
  responses: { 200: { description: 'Reports', schema: 'ReportList' } },
});

export const getReport = /* @__PURE__ */ defineRoute({
  operationId: 'getReport',
  method: 'GET',
  path: '/reports/{organisationId}/{reportId}',
  fn: 'get-report',
  summary: 'One report',
  tag: 'reports',
  auth: ADMINS,
  orgParam: 'organisationId',
  params: ReportParams,
  responses: { 200: { description: 'The report', schema: 'ReportView' }, 404: { description: 'REPORT_NOT_FOUND' } },
});

export const downloadReport = /* @__PURE__ */ defineRoute({
  operationId: 'downloadReport',
  method: 'GET',
  path: '/reports/{organisationId}/{reportId}/download',
  fn: 'download-report',
  summary: "Download the report's file: 303 to a pre-signed URL (or its JSON with redirect=false)",
  tag: 'reports',
  auth: ADMINS,
  orgParam: 'organisationId',
  params: ReportParams,
  query: DownloadQuery,
  responses: {
    200: { description: 'With redirect=false', schema: 'ReportDownload', headers: ['Cache-Control'] },
    303: {
      description: 'Location: a pre-signed URL valid REPORT_DOWNLOAD_URL_TTL_SECONDS',
      headers: ['Location', 'Cache-Control'],
    },
    404: { description: 'REPORT_NOT_FOUND' },
    409: { description: 'REPORT_NOT_READY (Retry-After) or REPORT_FAILED', headers: ['Retry-After'] },
    410: { description: 'REPORT_EXPIRED' },
  },
});
