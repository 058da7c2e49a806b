import { groupStatusDeps } from '#shared/config/groups';
import { getCreationStatus } from '#shared/domain/groups/get-creation-status';
import { api } from '#shared/http/api';
import { NO_STORE, ok } from '#shared/http/responses';
import { getGroupCreationStatus as route } from '#shared/routes/groups';

export const handler = api(route).handler(async ({ orgId, params }) =>
  ok(await getCreationStatus(groupStatusDeps(), { orgId, ...params }), NO_STORE),
);
