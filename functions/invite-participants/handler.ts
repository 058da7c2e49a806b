import { inviteDeps } from '#shared/config/chats';
import { inviteParticipants } from '#shared/domain/chats/group-members';
import { api } from '#shared/http/api';
import { accepted } from '#shared/http/responses';
import { inviteParticipants as route } from '#shared/routes/groups';

export const handler = api(route).handler(async ({ orgId, params, payload }) =>
  accepted(await inviteParticipants(inviteDeps(), { orgId, ...params, ...payload })),
);
