import { endSessionDeps } from '#shared/config/console';
import { config } from '#shared/config/core';
import { endConsoleSession } from '#shared/domain/console/sessions';
import { consoleCookie, readConsoleCookie, withCookie } from '#shared/http/console';
import { publicApi } from '#shared/http/public-api';
import { NO_STORE, ok } from '#shared/http/responses';
import { endConsoleSession as route } from '#shared/routes/console';

export const handler = publicApi(route).handler(async (event) => {
  await endConsoleSession(endSessionDeps(), { cookie: readConsoleCookie(event) });
  return withCookie(ok({ signedOut: true }, NO_STORE), consoleCookie(event, config().edgeOrigin, '', 0));
});
