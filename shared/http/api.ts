import type { Role } from '#shared/domain/auth/roles';
import type { RouteDef } from '#shared/routes/route';
import { authenticateBearer } from './bearer-auth.ts';
import { httpFunction } from './http-api.ts';

/**
 * Starts the HTTP function of a route that needs a bearer token. Only these functions bundle token verification
 * (jose) and the verification keys; public routes start with `publicApi`.
 */
export function api<R extends RouteDef & { auth: readonly Role[] }>(route: R) {
  return httpFunction(route, authenticateBearer);
}
