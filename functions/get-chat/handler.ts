import { chatDeps } from '#shared/config/chats';
import { getChat } from '#shared/domain/chats/chats';
import { api } from '#shared/http/api';
import { NO_STORE, ok } from '#shared/http/responses';
import { getChat as route } from '#shared/routes/groups';

// A group's answer may carry its invite link, which works as a secret (CONTRACT §13): never cached.
export const handler = api(route).handler(async ({ orgId, params, auth }) =>
  ok(await getChat(chatDeps(), { orgId, ...params, roles: auth.roles }), NO_STORE),
);
