import { groupMemberDeps } from '#shared/config/chats';
import { resetInviteLink } from '#shared/domain/chats/group-members';
import { api } from '#shared/http/api';
import { NO_STORE, ok } from '#shared/http/responses';
import { resetInviteLink as route } from '#shared/routes/groups';

export const handler = api(route).handler(async ({ orgId, params }) =>
  ok(await resetInviteLink(groupMemberDeps(), { orgId, ...params }), NO_STORE),
);
