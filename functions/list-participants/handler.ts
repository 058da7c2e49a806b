import { groupReadDeps } from '#shared/config/chats';
import { listParticipants } from '#shared/domain/chats/group-members';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { listParticipants as route } from '#shared/routes/groups';

export const handler = api(route).handler(async ({ orgId, params }) =>
  ok(await listParticipants(groupReadDeps(), { orgId, ...params })),
);
