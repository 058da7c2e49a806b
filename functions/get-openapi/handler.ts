import { publicApi } from '#shared/http/public-api';
import { ok } from '#shared/http/responses';
import { openApiDocument } from '#shared/openapi/document';
import { getOpenApi as route } from '#shared/routes/foundation';

const document = openApiDocument();

export const handler = publicApi(route).handler(async () => ok(document));
