import { sendMessageDeps } from '#shared/config/chats';
import { sendMessage } from '#shared/domain/chats/chats';
import { api } from '#shared/http/api';
import { accepted } from '#shared/http/responses';
import { sendMessage as route } from '#shared/routes/groups';

export const handler = api(route).handler(async ({ auth, orgId, payload }) =>
  accepted(await sendMessage(sendMessageDeps(), { orgId, ...payload, sender: auth })),
);
