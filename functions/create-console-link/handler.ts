import { createLinkDeps } from '#shared/config/console';
import { config } from '#shared/config/core';
import { createConsoleLink } from '#shared/domain/console/sessions';
import { api } from '#shared/http/api';
import { consoleAddress } from '#shared/http/console';
import { json, NO_STORE } from '#shared/http/responses';
import { createConsoleLink as route } from '#shared/routes/console';

export const handler = api(route).handler(async (event) =>
  json(
    201,
    await createConsoleLink(createLinkDeps(), {
      principal: event.auth,
      ...event.payload,
      consoleUrl: consoleAddress(event, config().edgeOrigin),
    }),
    NO_STORE,
  ),
);
