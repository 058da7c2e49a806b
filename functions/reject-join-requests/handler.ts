import { groupMemberDeps } from '#shared/config/chats';
import { decideJoinRequests } from '#shared/domain/chats/group-members';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { rejectJoinRequests as route } from '#shared/routes/groups';

export const handler = api(route).handler(async ({ orgId, params, payload }) =>
  ok(await decideJoinRequests(groupMemberDeps(), { orgId, ...params, ...payload, decision: 'reject' })),
);
