/**
 * An object whose properties are built on first read, each once: a table keyed by report type (its schema, its CSV
 * layout) costs a cold start only the entries it reads. The report worker reads the one type of its job, where
 * building all nine at load was most of its own code's import time (bench/RESULTS.md, P1).
 */
/* @__NO_SIDE_EFFECTS__ */ export function lazily<B extends Record<string, () => unknown>>(
  builders: B,
): { readonly [K in keyof B]: ReturnType<B[K]> } {
  const table = {} as Record<string, unknown>;
  for (const [key, build] of Object.entries(builders)) {
    Object.defineProperty(table, key, {
      enumerable: true,
      configurable: true,
      get() {
        const value = build();
        Object.defineProperty(table, key, { value, enumerable: true, writable: false, configurable: false });
        return value;
      },
    });
  }
  return table as { readonly [K in keyof B]: ReturnType<B[K]> };
}
