import * as v from 'valibot';
import { ROLES } from '#shared/domain/auth/roles';

/** Each top-level schema is built through this, so a bundle keeps only the schemas it uses (see common.ts). */
/* @__NO_SIDE_EFFECTS__ */ const schema = <T>(build: () => T): T => build();

export const TokenRequest = schema(() =>
  v.strictObject({
    clientId: v.pipe(v.string(), v.minLength(1), v.maxLength(256)),
    clientSecret: v.pipe(v.string(), v.minLength(1), v.maxLength(512)),
  }),
);
export type TokenRequest = v.InferOutput<typeof TokenRequest>;

export const TokenResponse = schema(() =>
  v.object({
    accessToken: v.string(),
    tokenType: v.literal('Bearer'),
    expiresIn: v.pipe(v.number(), v.integer(), v.description('Seconds until the token expires')),
    org: v.string(),
    roles: v.array(v.picklist(ROLES)),
  }),
);

export const Jwks = schema(() =>
  v.object({
    keys: v.array(
      v.object({
        kty: v.literal('EC'),
        crv: v.literal('P-256'),
        x: v.string(),
        y: v.string(),
        kid: v.string(),
        alg: v.literal('ES256'),
        use: v.literal('sig'),
      }),
    ),
  }),
);

export const Health = schema(() => v.object({ status: v.literal('ok') }));

/** This document itself, as an open object. */
export const OpenApiDocument = schema(() =>
  v.looseObject({
    openapi: v.literal('3.1.0'),
    info: v.looseObject({ title: v.string(), version: v.string() }),
    paths: v.looseObject({}),
  }),
);
