import { overviewDeps } from '#shared/config/console';
import { readOverview } from '#shared/domain/console/overview';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { getConsoleOverview as route } from '#shared/routes/console';

export const handler = api(route).handler(async ({ orgId }) => ok(await readOverview(overviewDeps(), { orgId })));
