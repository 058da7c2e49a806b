import { createReportScheduleDeps } from '#shared/config/report-schedules';
import { createReportSchedule } from '#shared/domain/reports/report-schedules';
import { api } from '#shared/http/api';
import { created } from '#shared/http/responses';
import { createReportSchedule as route } from '#shared/routes/report-schedules';
import { scheduleRequestOf } from '#shared/schemas/report-schedules';

export const handler = api(route).handler(async ({ orgId, auth, payload }) => {
  const input = { orgId, createdBy: auth.clientId, ...scheduleRequestOf(payload) };
  const schedule = await createReportSchedule(createReportScheduleDeps(), input);
  return created(schedule, `/api/wp-crm/report-schedules/${orgId}/${schedule.scheduleId}`);
});
