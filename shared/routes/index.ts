import * as foundation from './foundation.ts';
import type { RouteDef } from './route.ts';

/** Every route of the API. */
export const ROUTES: RouteDef[] = [
  foundation.issueToken,
  foundation.getJwks,
  foundation.getHealth,
  foundation.getOpenApi,
  foundation.listChannels,
];
