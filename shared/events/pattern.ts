/**
 * EventBridge content filtering, the subset our rules use: exact values (arrays mean "any of"), nested objects,
 * `prefix`, `anything-but` and `exists`. The local bus matches with it; CDK hands the same patterns to EventBridge.
 */
export type PatternValue =
  | string
  | number
  | boolean
  | null
  | { prefix: string }
  | { 'anything-but': (string | number)[] | string | number }
  | { exists: boolean };

export interface EventPattern {
  [field: string]: PatternValue[] | EventPattern;
}

export function matchesPattern(pattern: EventPattern, event: Record<string, unknown>): boolean {
  return Object.entries(pattern).every(([field, expected]) => {
    const actual = event[field];
    if (!Array.isArray(expected)) {
      return (
        typeof actual === 'object' && actual !== null && matchesPattern(expected, actual as Record<string, unknown>)
      );
    }
    return expected.some((candidate) => matchesValue(candidate, actual));
  });
}

function matchesValue(candidate: PatternValue, actual: unknown): boolean {
  const values = Array.isArray(actual) ? actual : [actual];
  if (candidate !== null && typeof candidate === 'object') {
    if ('exists' in candidate) return candidate.exists === (actual !== undefined);
    if ('prefix' in candidate)
      return values.some((value) => typeof value === 'string' && value.startsWith(candidate.prefix));
    const excluded = ([] as unknown[]).concat(candidate['anything-but']);
    return actual !== undefined && values.every((value) => !excluded.includes(value));
  }
  return values.some((value) => value === candidate);
}
