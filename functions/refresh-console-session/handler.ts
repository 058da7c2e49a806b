import { consoleSessionDeps } from '#shared/config/console';
import { refreshConsoleSession } from '#shared/domain/console/sessions';
import { readConsoleCookie } from '#shared/http/console';
import { publicApi } from '#shared/http/public-api';
import { NO_STORE, ok } from '#shared/http/responses';
import { refreshConsoleSession as route } from '#shared/routes/console';

export const handler = publicApi(route).handler(async (event) =>
  ok(await refreshConsoleSession(consoleSessionDeps(), { cookie: readConsoleCookie(event) }), NO_STORE),
);
