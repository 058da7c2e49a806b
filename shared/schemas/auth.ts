import * as v from 'valibot';
import { ROLES } from '#shared/domain/auth/roles';

export const TokenRequest = v.strictObject({
  clientId: v.pipe(v.string(), v.minLength(1), v.maxLength(256)),
  clientSecret: v.pipe(v.string(), v.minLength(1), v.maxLength(512)),
});
export type TokenRequest = v.InferOutput<typeof TokenRequest>;

export const TokenResponse = v.object({
  accessToken: v.string(),
  tokenType: v.literal('Bearer'),
  expiresIn: v.number(),
  org: v.string(),
  roles: v.array(v.picklist(ROLES)),
});

export const Jwks = v.object({
  keys: v.array(
    v.object({ kty: v.string(), crv: v.string(), x: v.string(), y: v.string(), kid: v.string(), alg: v.string() }),
  ),
});

export const Health = v.object({ status: v.literal('ok') });
