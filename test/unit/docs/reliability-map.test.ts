import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../../', import.meta.url).pathname;

/** IDs named in parentheses at the end of test titles, e.g. `it('… (E-1, E-2)')`. */
function idsInTestTitles(): Set<string> {
  const ids = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.test.ts')) {
        for (const [, list] of readFileSync(path, 'utf8').matchAll(/\(((?:[A-K]-\d+)(?:, [A-K]-\d+)*)\)['"`]/g)) {
          for (const id of list!.split(', ')) ids.add(id);
        }
      }
    }
  };
  walk(join(ROOT, 'test'));
  return ids;
}

/** Rows `| A-1 | file | name |` of docs/RELIABILITY.md's mapping table. */
function mappedIds(): { id: string; automated: boolean }[] {
  const doc = readFileSync(join(ROOT, 'docs/RELIABILITY.md'), 'utf8');
  return [...doc.matchAll(/^\| ([A-K]-\d+) \| ([^|]*) \| ([^|]*) \|$/gm)].map(([, id, file]) => ({
    id: id!,
    automated: !/^not applicable/i.test(file!.trim()),
  }));
}

describe('docs/RELIABILITY.md', () => {
  it('lists each ID of families A–K once', () => {
    const ids = mappedIds().map((row) => row.id);

    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(70);
  });

  it('names only IDs that some test title under test/ carries', () => {
    const named = idsInTestTitles();

    const stale = mappedIds().filter((row) => row.automated && !named.has(row.id));

    expect(stale.map((row) => row.id)).toEqual([]);
  });
});
