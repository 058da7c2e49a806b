import { requestReportDeps } from '#shared/config/reports';
import { requestReport } from '#shared/domain/reports/request-report';
import { api } from '#shared/http/api';
import { idempotentResponse } from '#shared/http/idempotent-response';
import { requestReport as route } from '#shared/routes/reports';
import { normaliseReportFilters } from '#shared/schemas/reports';

export const handler = api(route).handler(async ({ orgId, auth, payload, idempotencyKey }) => {
  const deps = requestReportDeps();
  const key = { orgId, idempotencyKey, operation: route.operationId, payload, idPrefix: 'rpt' };
  return idempotentResponse(deps, key, async (reportId) => {
    const filters = normaliseReportFilters(payload) as Record<string, unknown>;
    const input = { reportId, orgId, requestedBy: auth.clientId, reportType: payload.reportType, filters };
    const report = await requestReport(deps, input);
    return { statusCode: 202, body: report, location: `/api/wp-crm/reports/${orgId}/${report.reportId}` };
  });
});
