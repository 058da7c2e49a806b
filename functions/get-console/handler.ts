import { config } from '#shared/config/env';
import { serveConsole } from '#shared/console/serve';
import { publicApi } from '#shared/http/public-api';
import { getConsole as route } from '#shared/routes/console';

// Also behind getConsolePage, getConsolePageItem, getConsoleScript and getConsoleStyles: public routes without input, one check list.
export const handler = publicApi(route).handler(async (event) =>
  serveConsole(event, {
    file: new URL('console-build.json', import.meta.url),
    frameAncestors: config().console.frameAncestors,
  }),
);
