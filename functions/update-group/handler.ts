import { groupMemberDeps } from '#shared/config/chats';
import { updateGroup } from '#shared/domain/groups/group-lifecycle';
import { api } from '#shared/http/api';
import { accepted } from '#shared/http/responses';
import { updateGroup as route } from '#shared/routes/groups';

export const handler = api(route).handler(async ({ orgId, params, payload }) =>
  accepted(await updateGroup(groupMemberDeps(), { orgId, ...params, ...payload })),
);
