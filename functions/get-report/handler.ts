import { reportReadDeps } from '#shared/config/reports';
import { getReport } from '#shared/domain/reports/read-reports';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { getReport as route } from '#shared/routes/reports';

export const handler = api(route).handler(async ({ orgId, params }) =>
  ok(await getReport(reportReadDeps(), { orgId, ...params })),
);
