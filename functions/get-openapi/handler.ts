import { config } from '#shared/config/env';
import { requestOrigin } from '#shared/http/origin';
import { publicApi } from '#shared/http/public-api';
import { ok } from '#shared/http/responses';
import { loadServedDocument, OPENAPI_FILE, withServer } from '#shared/openapi/served';
import { getOpenApi as route } from '#shared/routes/foundation';

/** The document, once per process: the copy beside the bundle (shared/openapi/served.ts). */
let document: Promise<Record<string, unknown>> | undefined;

export const handler = publicApi(route).handler(async (event) => {
  document ??= loadServedDocument(new URL(OPENAPI_FILE, import.meta.url));
  return ok(withServer(await document, requestOrigin(event, config().edgeOrigin) ?? '/'));
});
