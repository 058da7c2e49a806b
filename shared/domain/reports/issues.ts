import type * as v from 'valibot';

const escapePointer = (key: unknown) => String(key).replaceAll('~', '~0').replaceAll('/', '~1');

/** The JSON Pointer of a path of keys and indices ('' for the value itself). */
export const pointerOf = (path: readonly unknown[]): string => path.map((key) => `/${escapePointer(key)}`).join('');

/** The JSON Pointer of a valibot issue, relative to the parsed value ('' for the value itself). */
export const issuePointer = (issue: v.BaseIssue<unknown>): string =>
  pointerOf((issue.path ?? []).map((item) => item.key));

/** A valibot issue's message, with strict-object key issues told apart (missing vs unknown). */
export function issueMessage(issue: v.BaseIssue<unknown>): string {
  if (issue.kind === 'schema' && issue.expected === 'never') return 'unknown property';
  // valibot reports a missing key of a strict object with the object's own issue type.
  if (issue.type === 'strict_object' && issue.input === undefined) return 'is required';
  return issue.message;
}
