import { readFile } from 'node:fs/promises';
import { config } from '#shared/config/env';
import { requestOrigin } from '#shared/http/origin';
import { publicApi } from '#shared/http/public-api';
import { ok } from '#shared/http/responses';
import { OPENAPI_FILE, withServer } from '#shared/openapi/served';
import { getOpenApi as route } from '#shared/routes/foundation';

/**
 * The document, once per process. A deployed bundle reads the copy built at synth beside it (a file read and a
 * JSON parse, instead of converting every schema at each cold start: CONTRACT §22's P1); the source, run by
 * `npm start`, has no copy and builds it.
 */
let document: Promise<Record<string, unknown>> | undefined;

async function loadDocument(): Promise<Record<string, unknown>> {
  try {
    return JSON.parse(await readFile(new URL(OPENAPI_FILE, import.meta.url), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const { openApiDocument } = await import('#shared/openapi/document');
    return openApiDocument();
  }
}

export const handler = publicApi(route).handler(async (event) => {
  document ??= loadDocument();
  return ok(withServer(await document, requestOrigin(event, config().edgeOrigin) ?? '/'));
});
