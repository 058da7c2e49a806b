type Known<T> = [unknown] extends [T] ? never : T;
export const seen: unknown[] = [];
export function read<T>(value: T & Known<T>): void {
  seen.push(value);
}
