import { updateReportScheduleDeps } from '#shared/config/report-schedules';
import { updateReportSchedule } from '#shared/domain/reports/report-schedules';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { updateReportSchedule as route } from '#shared/routes/report-schedules';

export const handler = api(route).handler(async ({ orgId, params, payload }) =>
  ok(await updateReportSchedule(updateReportScheduleDeps(), { orgId, ...params, ...payload })),
);
