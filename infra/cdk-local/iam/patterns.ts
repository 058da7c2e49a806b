/**
 * How a pattern's wildcards behave:
 * - `action`: `*` and `?` anywhere, case-insensitive (`s3:Get*`).
 * - `resource`: case-sensitive; `*` stays inside one colon-delimited ARN segment unless it is the segment's last
 *   character, in which case it may run past colons (IAM User Guide, "IAM JSON policy elements: Resource").
 * - `like`: StringLike: `*` and `?` match any characters.
 * - `exact`: no wildcards at all (StringEquals); only policy variables are expanded.
 */
export type PatternKind = 'action' | 'resource' | 'like' | 'exact';

/** Looks up a policy variable (`aws:username`) as a single string, or undefined when the request has none. */
export type VariableLookup = (name: string) => string | undefined;

const cache = new Map<string, RegExp>();
const VARIABLE = /^\$\{([^}]*)\}/;
// `${*}`, `${?}` and `${$}` stand for the literal characters (IAM User Guide, "Special characters").
const SPECIAL_VARIABLES = new Set(['*', '?', '$']);

/**
 * Compiles an IAM pattern to an anchored regular expression. With `variables`, `${key}` and `${key, 'default'}`
 * are replaced by the request's values as literal text; the result is undefined when a variable has no value and
 * no default, because such a pattern matches nothing.
 */
export function compilePattern(
  pattern: string,
  kind: PatternKind,
  options: { ignoreCase?: boolean; variables?: VariableLookup } = {},
): RegExp | undefined {
  const ignoreCase = kind === 'action' || options.ignoreCase === true;
  const cacheable = !options.variables || !pattern.includes('${');
  const cacheKey = `${kind}${ignoreCase ? 'i' : ''}\u0000${pattern}`;
  if (cacheable) {
    const cached = cache.get(cacheKey);
    if (cached) return cached;
  }
  let source = '';
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index]!;
    if (char === '$' && options.variables && pattern[index + 1] === '{') {
      const variable = VARIABLE.exec(pattern.slice(index));
      if (variable) {
        const value = resolveVariable(variable[1]!, options.variables);
        if (value === undefined) return undefined;
        source += escapeRegExp(value);
        index += variable[0].length - 1;
        continue;
      }
    }
    if (kind !== 'exact' && char === '*') {
      const endsSegment = index === pattern.length - 1 || pattern[index + 1] === ':';
      source += kind === 'resource' && !endsSegment ? '[^:]*' : '[\\s\\S]*';
    } else if (kind !== 'exact' && char === '?') {
      source += '[\\s\\S]';
    } else {
      source += escapeRegExp(char);
    }
  }
  const compiled = new RegExp(`^${source}$`, ignoreCase ? 'i' : '');
  if (cacheable) cache.set(cacheKey, compiled);
  return compiled;
}

/** Whether `value` matches `pattern`; a pattern with an unresolvable policy variable matches nothing. */
export function matchesPattern(
  pattern: string,
  value: string,
  kind: PatternKind,
  options: { ignoreCase?: boolean; variables?: VariableLookup } = {},
): boolean {
  if (kind !== 'exact' && pattern === '*') return true;
  return compilePattern(pattern, kind, options)?.test(value) ?? false;
}

function resolveVariable(body: string, variables: VariableLookup): string | undefined {
  const trimmed = body.trim();
  if (SPECIAL_VARIABLES.has(trimmed)) return trimmed;
  const withDefault = /^(.*?)\s*,\s*'(.*)'$/.exec(trimmed);
  if (withDefault) return variables(withDefault[1]!) ?? withDefault[2]!;
  return variables(trimmed);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
