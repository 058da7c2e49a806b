import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '#shared/domain/cursor';
import { ValidationError } from '#shared/errors';

describe('list cursors', () => {
  const position = { PK: 'ORG#a', SK: 'CHANNEL#2' };

  it('round-trips a position for the same binding', () => {
    const cursor = encodeCursor(position, ['channels', 'a'])!;

    expect(decodeCursor(cursor, ['channels', 'a'])).toEqual(position);
  });

  it('is null on the last page', () => {
    expect(encodeCursor(undefined, ['channels', 'a'])).toBeNull();
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
    const cursor = alter(encodeCursor(position, ['channels', 'a'])!);

    expect(() => decodeCursor(cursor, binding)).toThrow(ValidationError);
  });
});
