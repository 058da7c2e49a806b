import { issueTokenDeps } from '#shared/config/auth';
import { issueToken } from '#shared/domain/auth/issue-token';
import { publicApi } from '#shared/http/public-api';
import { NO_STORE, ok } from '#shared/http/responses';
import { issueToken as route } from '#shared/routes/foundation';

export const handler = publicApi(route).handler(async ({ payload, requestContext }) =>
  ok(await issueToken(issueTokenDeps(), { ...payload, sourceIp: requestContext.http.sourceIp }), NO_STORE),
);
