import { groupMemberDeps } from '#shared/config/chats';
import { deleteGroup } from '#shared/domain/groups/group-lifecycle';
import { api } from '#shared/http/api';
import { accepted } from '#shared/http/responses';
import { deleteGroup as route } from '#shared/routes/groups';

export const handler = api(route).handler(async ({ orgId, params }) =>
  accepted(await deleteGroup(groupMemberDeps(), { orgId, ...params })),
);
