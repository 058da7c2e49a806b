import { chatDeps } from '#shared/config/chats';
import { assignChat } from '#shared/domain/chats/chats';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { assignChat as route } from '#shared/routes/groups';

export const handler = api(route).handler(async ({ orgId, params, payload }) =>
  ok(await assignChat(chatDeps(), { orgId, ...params, ...payload })),
);
