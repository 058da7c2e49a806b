import { receiptListDeps } from '#shared/config/chats';
import { listReceipts } from '#shared/domain/chats/chats';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { listReceipts as route } from '#shared/routes/groups';

export const handler = api(route).handler(async ({ orgId, params, query }) =>
  ok(await listReceipts(receiptListDeps(), { orgId, ...params, ...query })),
);
