import { reportListDeps } from '#shared/config/reports';
import { listReports } from '#shared/domain/reports/read-reports';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { listReports as route } from '#shared/routes/reports';

export const handler = api(route).handler(async ({ orgId, query }) =>
  ok(await listReports(reportListDeps(), { orgId, ...query })),
);
