import { notFoundRoute } from '#shared/http/fallback';

/** API Gateway's `$default` route: 404 ROUTE_NOT_FOUND or 405 METHOD_NOT_ALLOWED as problem documents. */
export const handler = notFoundRoute;
