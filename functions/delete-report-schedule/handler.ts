import { reportScheduleDeps } from '#shared/config/report-schedules';
import { deleteReportSchedule } from '#shared/domain/reports/report-schedules';
import { api } from '#shared/http/api';
import { noContent } from '#shared/http/responses';
import { deleteReportSchedule as route } from '#shared/routes/report-schedules';

export const handler = api(route).handler(async ({ orgId, params }) => {
  await deleteReportSchedule(reportScheduleDeps(), { orgId, ...params });
  return noContent();
});
