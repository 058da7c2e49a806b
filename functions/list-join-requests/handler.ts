import { joinRequestListDeps } from '#shared/config/chats';
import { listJoinRequests } from '#shared/domain/chats/group-members';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { listJoinRequests as route } from '#shared/routes/groups';

export const handler = api(route).handler(async ({ orgId, params, query }) =>
  ok(await listJoinRequests(joinRequestListDeps(), { orgId, ...params, ...query })),
);
