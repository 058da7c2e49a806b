import { api } from '#shared/http/api';
import { requestOrigin } from '#shared/http/origin';
import { ok } from '#shared/http/responses';
import { openApiDocument, withServer } from '#shared/openapi/document';
import { getOpenApi as route } from '#shared/routes/foundation';

const document = openApiDocument();

export const handler = api(route).handler(async (event) => ok(withServer(document, requestOrigin(event) ?? '/')));
