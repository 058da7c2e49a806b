import { reportScheduleDeps } from '#shared/config/report-schedules';
import { getReportSchedule } from '#shared/domain/reports/report-schedules';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { getReportSchedule as route } from '#shared/routes/report-schedules';

export const handler = api(route).handler(async ({ orgId, params }) =>
  ok(await getReportSchedule(reportScheduleDeps(), { orgId, ...params })),
);
