import { groupDeps } from '#shared/config/chats';
import { getGroup } from '#shared/domain/groups/group-lifecycle';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { getGroup as route } from '#shared/routes/groups';

export const handler = api(route).handler(async ({ orgId, params }) =>
  ok(await getGroup(groupDeps(), { orgId, ...params })),
);
