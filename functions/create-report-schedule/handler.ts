import { createReportScheduleDeps } from '#shared/config/report-schedules';
import { createReportSchedule } from '#shared/domain/reports/report-schedules';
import { api } from '#shared/http/api';
import { idempotentResponse } from '#shared/http/idempotent-response';
import { createReportSchedule as route } from '#shared/routes/report-schedules';
import { scheduleRequestOf } from '#shared/schemas/report-schedules';

export const handler = api(route).handler(async ({ orgId, auth, payload, idempotencyKey }) => {
  const key = { orgId, idempotencyKey, operation: route.operationId, payload, idPrefix: 'rsc' };
  return idempotentResponse(createReportScheduleDeps(), key, async (scheduleId) => {
    const input = { orgId, scheduleId, createdBy: auth.clientId, ...scheduleRequestOf(payload) };
    const schedule = await createReportSchedule(createReportScheduleDeps(), input);
    return {
      statusCode: 201,
      body: schedule,
      location: `/api/wp-crm/report-schedules/${orgId}/${schedule.scheduleId}`,
    };
  });
});
