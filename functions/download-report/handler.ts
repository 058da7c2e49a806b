import { reportDownloadDeps } from '#shared/config/reports';
import { reportDownload } from '#shared/domain/reports/read-reports';
import { api } from '#shared/http/api';
import { ok, seeOther } from '#shared/http/responses';
import { downloadReport as route } from '#shared/routes/reports';

export const handler = api(route).handler(async ({ orgId, params, query }) => {
  const download = await reportDownload(reportDownloadDeps(), { orgId, ...params });
  return query.redirect === 'false' ? ok(download, { 'cache-control': 'no-store' }) : seeOther(download.url);
});
