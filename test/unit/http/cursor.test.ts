import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '#shared/domain/cursor';
import { ValidationError } from '#shared/errors';

const KEY = randomBytes(32);

const refused = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof ValidationError && error.errors?.[0]?.pointer === '#/query/cursor';
  }
  return false;
};

describe('list cursors', () => {
  const position = { PK: 'ORG#a', SK: 'CHANNEL#2' };

  it('round-trips a position for the same binding', () => {
    const cursor = encodeCursor(KEY, position, ['channels', 'a'])!;

    expect(decodeCursor(KEY, cursor, ['channels', 'a'])).toEqual(position);
  });

  it('is null on the last page', () => {
    expect(encodeCursor(KEY, undefined, ['channels', 'a'])).toBeNull();
  });

  it.each([
    ['another organisation', (cursor: string) => cursor, ['channels', 'b']],
    [
      'a changed character',
      (cursor: string) => `${cursor.slice(0, 5)}${cursor[5] === 'A' ? 'B' : 'A'}${cursor.slice(6)}`,
      ['channels', 'a'],
    ],
    ['appended text', (cursor: string) => `${cursor}x`, ['channels', 'a']],
    ['not base64 JSON', () => 'garbage', ['channels', 'a']],
  ])('refuses a cursor with %s at #/query/cursor', (_, alter, binding) => {
    const cursor = alter(encodeCursor(KEY, position, ['channels', 'a'])!);

    expect(() => decodeCursor(KEY, cursor, binding)).toThrow(ValidationError);
  });

  it('refuses a well-formed cursor for any position that was not made with the server key', () => {
    const forged = encodeCursor(randomBytes(32), { PK: 'ORG#a', SK: { S: 'x' } }, ['channels', 'a'])!;

    expect(refused(() => decodeCursor(KEY, forged, ['channels', 'a']))).toBe(true);
  });

  it('round-trips any position under any binding (property)', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer())),
        fc.array(fc.string()),
        (start, binding) => {
          fc.pre(Object.keys(start).length > 0);
          expect(decodeCursor(KEY, encodeCursor(KEY, start, binding)!, binding)).toEqual(start);
        },
      ),
    );
  });

  it('refuses every truncation, extension and single-character change of a cursor (property)', () => {
    const cursor = encodeCursor(KEY, position, ['channels', 'a'])!;
    const altered = fc.oneof(
      fc.nat({ max: cursor.length - 1 }).map((end) => cursor.slice(0, end)),
      fc.string({ minLength: 1 }).map((tail) => cursor + tail),
      fc
        .tuple(fc.nat({ max: cursor.length - 1 }), fc.constantFrom(...'ABCabc012-_.=/+'))
        .map(([at, char]) => `${cursor.slice(0, at)}${char}${cursor.slice(at + 1)}`)
        .filter((changed) => changed !== cursor),
    );

    fc.assert(fc.property(altered, (hostile) => refused(() => decodeCursor(KEY, hostile, ['channels', 'a']))));
  });

  it('refuses any string that is not a cursor it made (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 300 }), (hostile) =>
        refused(() => decodeCursor(KEY, hostile, ['channels', 'a'])),
      ),
    );
  });
});
