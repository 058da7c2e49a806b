import { requestReportDeps } from '#shared/config/reports';
import { requestReport } from '#shared/domain/reports/request-report';
import { api } from '#shared/http/api';
import { idempotentResponse } from '#shared/http/idempotent-response';
import { requestReport as route } from '#shared/routes/reports';
import { reportRequestOf } from '#shared/schemas/reports';

export const handler = api(route).handler(async ({ orgId, auth, payload, idempotencyKey }) => {
  const key = { orgId, idempotencyKey, operation: route.operationId, payload, idPrefix: 'rpt' };
  return idempotentResponse(requestReportDeps(), key, async (reportId) => {
    const input = { reportId, orgId, requestedBy: auth.clientId, ...reportRequestOf(payload) };
    const report = await requestReport(requestReportDeps(), input);
    return { statusCode: 202, body: report, location: `/api/wp-crm/reports/${orgId}/${report.reportId}` };
  });
});
