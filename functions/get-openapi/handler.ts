import { config } from '#shared/config/env';
import { requestOrigin } from '#shared/http/origin';
import { publicApi } from '#shared/http/public-api';
import { ok } from '#shared/http/responses';
import { openApiDocument, withServer } from '#shared/openapi/document';
import { getOpenApi as route } from '#shared/routes/foundation';

const document = openApiDocument();

export const handler = publicApi(route).handler(async (event) =>
  ok(withServer(document, requestOrigin(event, config().edgeOrigin) ?? '/')),
);
