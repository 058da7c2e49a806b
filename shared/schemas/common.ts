import * as v from 'valibot';

/** `limit` 1–100 (default 20) and an opaque `cursor`, on every list endpoint (CONTRACT §10). */
export const Limit = v.optional(
  v.pipe(
    v.string(),
    v.regex(/^\d{1,3}$/, 'must be an integer from 1 to 100'),
    v.transform(Number),
    v.minValue(1, 'must be an integer from 1 to 100'),
    v.maxValue(100, 'must be an integer from 1 to 100'),
  ),
  '20',
);

export const ListQuery = v.strictObject({
  limit: Limit,
  cursor: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(2048))),
});
export type ListQuery = v.InferOutput<typeof ListQuery>;

export const NextCursor = v.nullable(v.string());

export const Timestamp = v.pipe(v.string(), v.isoTimestamp());

/** A count or another whole number the service returns. */
export const Count = v.pipe(v.number(), v.integer(), v.minValue(0));

export const BooleanQuery = v.picklist(['true', 'false'], 'must be true or false');
