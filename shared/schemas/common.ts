import * as v from 'valibot';

/**
 * Every top-level schema of shared/schemas/ is built through `schema(() => …)`, so that a function's bundle keeps only
 * the schemas it uses. esbuild drops an unused top-level value only when building it has no side effects, and it
 * takes a call as free of them only when the callee is marked so in the calling file (valibot's own marks do not
 * carry across modules: evanw/esbuild#4369); without this, every route's schemas were built at each cold start
 * (bench/RESULTS.md, P1). Each schema module declares its own copy for that reason.
 */
/* @__NO_SIDE_EFFECTS__ */ const schema = <T>(build: () => T): T => build();

/** `limit` 1–100 (default 20) and an opaque `cursor`, on every list endpoint (CONTRACT §10). */
export const Limit = schema(() =>
  v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,3}$/, 'must be an integer from 1 to 100'),
      v.transform(Number),
      v.minValue(1, 'must be an integer from 1 to 100'),
      v.maxValue(100, 'must be an integer from 1 to 100'),
    ),
    '20',
  ),
);

export const ListQuery = schema(() =>
  v.strictObject({
    limit: Limit,
    cursor: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(2048))),
  }),
);
export type ListQuery = v.InferOutput<typeof ListQuery>;

export const NextCursor = schema(() => v.nullable(v.string()));

export const Timestamp = schema(() => v.pipe(v.string(), v.isoTimestamp()));

/** A count or another whole number the service returns. */
export const Count = schema(() => v.pipe(v.number(), v.integer(), v.minValue(0)));

export const BooleanQuery = schema(() => v.picklist(['true', 'false'], 'must be true or false'));
