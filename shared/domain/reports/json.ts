/**
 * Compact JSON with object keys sorted recursively in code-unit order, so equal objects give equal text.
 * Written by hand: a JavaScript object always lists integer-like keys ("9", "10") first, whatever their order.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value))
    return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const object = value as Record<string, unknown>;
    if (typeof object.toJSON === 'function') return canonicalJson(object.toJSON());
    const keys = Object.keys(object)
      .filter((key) => object[key] !== undefined && typeof object[key] !== 'function')
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
