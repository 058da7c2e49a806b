import { describe, expect, it, vi } from 'vitest';
import { lazily } from '#shared/lazily';

describe('lazily', () => {
  it('builds an entry on its first read, once, and no other entry', () => {
    const chat = vi.fn(() => ({ columns: ['chatId'] }));
    const contact = vi.fn(() => ({ columns: ['contactId'] }));
    const table = lazily({ CHAT: chat, CONTACT: contact });

    expect(chat).not.toHaveBeenCalled();
    const first = table.CHAT;
    const second = table.CHAT;

    expect(first).toEqual({ columns: ['chatId'] });
    expect(second).toBe(first);
    expect(chat).toHaveBeenCalledTimes(1);
    expect(contact).not.toHaveBeenCalled();
  });

  it('lists every key, and builds each entry when the values are read', () => {
    const table = lazily({ a: () => 1, b: () => 2 });

    expect(Object.keys(table)).toEqual(['a', 'b']);
    expect(Object.values(table)).toEqual([1, 2]);
    expect(Object.entries(table)).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
  });

  it('keeps a built entry read-only', () => {
    const table = lazily({ a: () => 1 });
    expect(table.a).toBe(1);

    expect(() => {
      (table as { a: number }).a = 2;
    }).toThrow(TypeError);
    expect(table.a).toBe(1);
  });
});
