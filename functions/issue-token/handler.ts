import { deps } from '#shared/config/deps';
import { issueToken } from '#shared/domain/auth/issue-token';
import { api } from '#shared/http/api';
import { ok } from '#shared/http/responses';
import { issueToken as route } from '#shared/routes/foundation';

export const handler = api(route).handler(async ({ payload, requestContext }) =>
  ok(await issueToken(deps(), { ...payload, sourceIp: requestContext.http.sourceIp }), { 'cache-control': 'no-store' }),
);
