import { serveApiReference } from '#shared/docs/api-reference';
import { publicApi } from '#shared/http/public-api';
import { getDocs as route } from '#shared/routes/foundation';

// Also behind getDocsAsset (GET /docs/{asset}): both routes are public and take no input, so one check list fits.
export const handler = publicApi(route).handler(async (event) => serveApiReference(event));
