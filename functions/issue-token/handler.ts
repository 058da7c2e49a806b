import { issueTokenDeps } from '#shared/config/auth';
import { config } from '#shared/config/env';
import { issueToken } from '#shared/domain/auth/issue-token';
import { callerAddress } from '#shared/http/edge';
import { publicApi } from '#shared/http/public-api';
import { NO_STORE, ok } from '#shared/http/responses';
import { issueToken as route } from '#shared/routes/foundation';

export const handler = publicApi(route).handler(async (event) =>
  ok(
    await issueToken(issueTokenDeps(), { ...event.payload, sourceIp: callerAddress(event, config().edgeOrigin) }),
    NO_STORE,
  ),
);
