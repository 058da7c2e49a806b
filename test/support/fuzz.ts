import fc from 'fast-check';

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema documents are free-form
type JsonSchema = Record<string, any>;

const TEXT = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '../../etc/passwd',
    "' OR '1'='1",
    '<script>',
    '$' + '{jndi:x}',
    '%00',
    'null',
    '🎉',
  ),
);

/**
 * Values that satisfy a JSON Schema of the kind the OpenAPI document holds (objects, strings with bounds, enums,
 * consts, booleans, numbers, arrays, oneOf/anyOf), as a valid request body would.
 */
export function fromSchema(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return fc.jsonValue({ maxDepth: 2 });
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  const choices = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (choices) return fc.oneof(...choices.map((choice) => fromSchema(choice, depth + 1)));
  switch (schema.type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set<string>(schema.required ?? []);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries(properties)) model[name] = fromSchema(property, depth + 1);
      return fc.record(model, { requiredKeys: [...required].filter((name) => name in model) });
    }
    case 'array':
      return fc.array(fromSchema(schema.items, depth + 1), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 5, 5),
      });
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -10, max: schema.maximum ?? 1000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -10, max: schema.maximum ?? 1000, noNaN: true });
    case 'string': {
      const min = schema.minLength ?? 0;
      const max = Math.min(schema.maxLength ?? 40, 300);
      if (schema.format === 'uri')
        return fc.constantFrom('https://example.com/hook', 'http://127.0.0.1:1/x', 'ftp://x');
      return fc.oneof(
        fc.string({ minLength: min, maxLength: Math.max(min, Math.min(max, 40)) }),
        fc.constantFrom('2026-11-30', '2026-11-30T10:00:00Z', '+4915112345678', '[]', '{}'),
      );
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A body near the schema: mostly valid, often broken in one place (wrong type, unknown or missing property). */
export function bodyFor(schema: JsonSchema | undefined): fc.Arbitrary<unknown> {
  const valid = fromSchema(schema);
  const broken = valid.chain((value) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return fc.constant(value);
    const keys = Object.keys(value);
    return fc.oneof(
      fc
        .record({ key: TEXT, extra: fc.jsonValue({ maxDepth: 1 }) })
        .map(({ key, extra }) => ({ ...value, [key]: extra })),
      keys.length === 0
        ? fc.constant(value)
        : fc
            .record({ key: fc.constantFrom(...keys), replacement: fc.jsonValue({ maxDepth: 2 }) })
            .map(({ key, replacement }) => ({ ...value, [key]: replacement })),
      keys.length === 0
        ? fc.constant(value)
        : fc.constantFrom(...keys).map((key) => {
            const { [key]: _, ...rest } = value as Record<string, unknown>;
            return rest;
          }),
    );
  });
  return fc.oneof(
    { weight: 3, arbitrary: valid },
    { weight: 3, arbitrary: broken },
    { weight: 1, arbitrary: fc.jsonValue() },
  );
}

/** Raw body bytes: JSON of a value, or text that is not JSON, deep nesting, or nothing. */
export function rawBody(value: fc.Arbitrary<unknown>): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 8, arbitrary: value.map((item) => JSON.stringify(item)) },
    { weight: 1, arbitrary: fc.constantFrom('{', '{"a":', 'not json', '\u0000', '[1,2,', '') },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 20_000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

/** Strings for a path segment: ids of either organisation, random text, traversal and encoding tricks. */
export function segment(known: readonly string[]): fc.Arbitrary<string> {
  const tricks = fc.constantFrom('..', '%2e%2e', '%2F', 'a%2Fb', '%00', '%E2%80%8B', 'x'.repeat(600), '%ZZ');
  const random = TEXT.filter((text) => text.length > 0).map((text) => encodeURIComponent(text));
  return known.length > 0
    ? fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...known) },
        { weight: 2, arbitrary: random },
        { weight: 1, arbitrary: tricks },
      )
    : fc.oneof(random, tricks);
}

export { TEXT as fuzzText };
