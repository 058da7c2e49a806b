import { readFeedDeps } from '#shared/config/events';
import { readFeed } from '#shared/domain/events/feed';
import { api } from '#shared/http/api';
import { NO_STORE, ok } from '#shared/http/responses';
import { listEvents as route } from '#shared/routes/events';

export const handler = api(route).handler(async ({ orgId, query }) =>
  ok(await readFeed(readFeedDeps(), { orgId, ...query }), NO_STORE),
);
