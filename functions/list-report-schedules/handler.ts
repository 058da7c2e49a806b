import { listReportSchedulesDeps } from '#shared/config/report-schedules';
import { listReportSchedules } from '#shared/domain/reports/report-schedules';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { listReportSchedules as route } from '#shared/routes/report-schedules';

export const handler = api(route).handler(async ({ orgId, query }) =>
  ok(await listReportSchedules(listReportSchedulesDeps(), { orgId, ...query })),
);
