import { channelListDeps } from '#shared/config/chats';
import { listChannels } from '#shared/domain/channels/list-channels';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { listChannels as route } from '#shared/routes/foundation';

export const handler = api(route).handler(async ({ orgId, query }) =>
  ok(await listChannels(channelListDeps(), { orgId, ...query })),
);
