import { groupMemberDeps } from '#shared/config/chats';
import { removeParticipants } from '#shared/domain/chats/group-members';
import { api } from '#shared/http/api';
import { accepted } from '#shared/http/responses';
import { removeParticipants as route } from '#shared/routes/groups';

export const handler = api(route).handler(async ({ orgId, params, payload }) =>
  accepted(await removeParticipants(groupMemberDeps(), { orgId, ...params, ...payload })),
);
