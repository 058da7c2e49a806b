import type { Role } from '#shared/domain/auth/roles';
import type { RouteDef } from '#shared/routes/route';
import { authenticateBearer } from './bearer-auth.ts';
import { httpFunction } from './http-api.ts';
import { requestQuota } from './request-quota.ts';

/**
 * Starts the HTTP function of a route that needs a bearer token. Only these functions bundle token verification
 * (jose) and the verification keys; public routes start with `publicApi`. Every one counts against its
 * organisation's quotas (CONTRACT §18).
 */
export function api<R extends RouteDef & { auth: readonly Role[] }>(route: R) {
  return httpFunction(route, authenticateBearer).use(requestQuota(route));
}
