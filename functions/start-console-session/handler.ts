import { consoleSessionDeps } from '#shared/config/console';
import { config } from '#shared/config/core';
import { startConsoleSession } from '#shared/domain/console/sessions';
import { consoleCookie, withCookie } from '#shared/http/console';
import { publicApi } from '#shared/http/public-api';
import { json, NO_STORE } from '#shared/http/responses';
import { startConsoleSession as route } from '#shared/routes/console';

export const handler = publicApi(route).handler(async (event) => {
  const { token, cookie, sessionSeconds } = await startConsoleSession(consoleSessionDeps(), event.payload);
  return withCookie(json(201, token, NO_STORE), consoleCookie(event, config().edgeOrigin, cookie, sessionSeconds));
});
