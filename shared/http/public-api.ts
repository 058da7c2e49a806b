import type { RouteDef } from '#shared/routes/route';
import { httpFunction } from './http-api.ts';

/** Starts the HTTP function of a public route (no token): it bundles no token verification and no keys. */
export function publicApi<R extends RouteDef & { auth: 'public' }>(route: R) {
  return httpFunction(route);
}
