import { groupListDeps } from '#shared/config/chats';
import { listGroups } from '#shared/domain/groups/group-lifecycle';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { listGroups as route } from '#shared/routes/groups';

export const handler = api(route).handler(async ({ orgId, query }) =>
  ok(await listGroups(groupListDeps(), { orgId, ...query })),
);
