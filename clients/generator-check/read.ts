/**
 * What the generated walkthroughs (generated/walkthroughs/, written by walkthroughs.ts) hand every field to. Each
 * reader compiles only for a value a client can use as it comes: not `any` or `unknown` (a cast would be needed), not
 * `never` (no value at all), and absent (`undefined`) or `null` exactly when the document says the field may be. A
 * generator that types a required field as optional, a nullable one as never null, or anything as `unknown` fails
 * `tsc` at the field, and tsc's message says which.
 */
type Absent = 'never' | 'may' | 'either';
type Reason<T, A extends Absent, Null extends boolean> = [unknown] extends [T]
  ? 'is any or unknown: a client would need a cast'
  : A extends 'either' | (undefined extends T ? 'may' : 'never')
    ? (null extends T ? true : false) extends Null
      ? undefined
      : Null extends true
        ? 'is never null in the generated type, but the document lets it be null'
        : 'may be null in the generated type, but the document never sends null'
    : A extends 'may'
      ? 'is never undefined in the generated type, but the document lets it be absent'
      : 'may be undefined in the generated type, but the document requires it';
/** The value's own type when it is what the document says, else one that names the difference in tsc's message. */
type Checked<T, A extends Absent, Null extends boolean> = [Reason<T, A, Null>] extends [undefined]
  ? T
  : T & { [reason in Reason<T, A, Null> & string]: never };
/** `never` is assignable to anything: refused as a missing argument instead. */
type NotNever<T> = [T] extends [never] ? [never_so_there_is_no_value_to_read: never] : [];

export const seen: unknown[] = [];

/** A field the document requires and never sends as `null`. */
export function read<T>(value: Checked<T, 'never', false>, ...refused: NotNever<T>): void {
  seen.push(value, refused);
}

/** A field the document lets be absent, never `null`. */
export function readOptional<T>(value: Checked<T, 'may', false>, ...refused: NotNever<T>): void {
  seen.push(value, refused);
}

/**
 * A field the document lets be absent but gives a default: openapi-typescript types it as always there (its
 * `defaultNonNullable`, on by default), the others as optional; either way a client reads it without a cast.
 */
export function readDefaulted<T>(value: Checked<T, 'either', false>, ...refused: NotNever<T>): void {
  seen.push(value, refused);
}

/** A field that is always there and may be `null`. */
export function readNullable<T>(value: Checked<T, 'never', true>, ...refused: NotNever<T>): void {
  seen.push(value, refused);
}

/** A field that may be absent or `null`. */
export function readOptionalNullable<T>(value: Checked<T, 'may', true>, ...refused: NotNever<T>): void {
  seen.push(value, refused);
}

/** A field with a default that may be `null` (see readDefaulted). */
export function readDefaultedNullable<T>(value: Checked<T, 'either', true>, ...refused: NotNever<T>): void {
  seen.push(value, refused);
}

/** Compiles only where every alternative has been handled: the generator's union has no other member. */
export function exhaustive(value: never): void {
  seen.push(value);
}
