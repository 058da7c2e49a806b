import { monotonicFactory } from 'ulid';

/** Issues prefixed, time-ordered ids such as `ch_01J…` (prefix + ULID). */
export interface IdGenerator {
  next(prefix: string): string;
}

export function ulidIds(): IdGenerator {
  const ulid = monotonicFactory();
  return { next: (prefix) => `${prefix}_${ulid()}` };
}
