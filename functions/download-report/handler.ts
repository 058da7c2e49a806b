import { reportDownloadDeps } from '#shared/config/reports';
import { reportDownload } from '#shared/domain/reports/read-reports';
import { api } from '#shared/http/api';
import { NO_STORE, ok, seeOther } from '#shared/http/responses';
import { downloadReport as route } from '#shared/routes/reports';

export const handler = api(route).handler(async ({ orgId, params, query }) => {
  const download = await reportDownload(reportDownloadDeps(), { orgId, ...params });
  return query.redirect === 'false' ? ok(download, NO_STORE) : seeOther(download.url, NO_STORE);
});
