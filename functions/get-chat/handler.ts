import { chatDeps } from '#shared/config/chats';
import { getChat } from '#shared/domain/chats/chats';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { getChat as route } from '#shared/routes/groups';

export const handler = api(route).handler(async ({ orgId, params }) =>
  ok(await getChat(chatDeps(), { orgId, ...params })),
);
