import * as v from 'valibot';
import { type FieldError, ValidationError } from '#shared/errors';

const escapePointer = (key: unknown) => String(key).replaceAll('~', '~0').replaceAll('/', '~1');

/** Valibot issues as problem `errors[]`, each with a JSON Pointer under `prefix` ('' for the body). */
export function toFieldErrors(issues: readonly v.BaseIssue<unknown>[], prefix: string): FieldError[] {
  return issues.map((issue) => {
    const path = issue.path?.map((item) => escapePointer(item.key)) ?? [];
    const pointer = prefix === '' ? `/${path.join('/')}` : [prefix, ...path].join('/');
    return { pointer: pointer === '/' ? '' : pointer, message: describe(issue) };
  });
}

function describe(issue: v.BaseIssue<unknown>): string {
  if (issue.expected === 'never') return 'unknown property';
  const objectIssue = issue.type === 'object' || issue.type === 'strict_object' || issue.type === 'loose_object';
  if (objectIssue && issue.input === undefined && issue.path?.length) return 'is required';
  return issue.message;
}

/** Parses `input` with `schema` or throws a 400 VALIDATION_FAILED naming every problem. */
export function parseOrThrow<S extends v.GenericSchema>(schema: S, input: unknown, prefix: string): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (!result.success) throw new ValidationError(toFieldErrors(result.issues, prefix));
  return result.output;
}
