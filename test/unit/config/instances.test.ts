import { afterEach, describe, expect, it } from 'vitest';
import { instance, lazyDeps, provide, resetDeps } from '#shared/config/instances';

let builds = 0;
function counter(): { id: number } {
  return instance(counter, () => ({ id: ++builds }));
}

describe('the per-process instances of shared/config', () => {
  afterEach(() => {
    resetDeps();
  });

  it('builds an instance on first use and returns the same one afterwards', () => {
    const first = counter();

    expect(counter()).toBe(first);
  });

  it('builds every instance again after resetDeps', () => {
    const before = counter();

    resetDeps();

    expect(counter()).not.toBe(before);
  });

  it('returns a provided value instead of building one, until the next reset', () => {
    provide(counter, { id: -1 });

    expect(counter()).toEqual({ id: -1 });
    resetDeps();
    expect(counter().id).toBeGreaterThan(0);
  });

  it('lazyDeps touches a getter only when its property is read', () => {
    const reads: string[] = [];
    const deps = lazyDeps<{ a: string; b: string }>({
      a: () => {
        reads.push('a');
        return 'A';
      },
      b: () => {
        reads.push('b');
        return 'B';
      },
    });

    expect(reads).toEqual([]);
    expect(deps.b).toBe('B');
    expect(reads).toEqual(['b']);
  });
});
