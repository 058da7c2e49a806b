import { messageListDeps } from '#shared/config/chats';
import { listMessages } from '#shared/domain/chats/chats';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { listMessages as route } from '#shared/routes/groups';

export const handler = api(route).handler(async ({ orgId, params, query }) =>
  ok(await listMessages(messageListDeps(), { orgId, ...params, ...query })),
);
