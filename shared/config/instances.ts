/**
 * The per-process instances of the composition root. Each getter in `shared/config/` keeps its instance here, keyed by
 * the getter itself: built on first use, then kept for the life of the process (one cold start). Nothing here imports
 * an adapter, so a function bundles only the getters it calls and the clients behind them.
 */
const instances = new Map<object, unknown>();

/** The instance `getter` stands for, built by `build` the first time it is asked for. */
export function instance<T>(getter: () => T, build: () => T): T {
  if (instances.has(getter)) return instances.get(getter) as T;
  const value = build();
  instances.set(getter, value);
  return value;
}

/** Makes `getter` return `value` until the next reset: benchmarks run handlers over in-memory fakes this way. */
export function provide<T>(getter: () => T, value: T): void {
  instances.set(getter, value);
}

/** Forgets every instance; the local stack calls it when it restarts in the same process. */
export function resetDeps(): void {
  instances.clear();
}

/**
 * A use case's dependencies as an object whose properties are read through their getters, so a port (and its SDK
 * client) is built when the use case first touches it, not when the handler starts.
 */
export function lazyDeps<T extends object>(getters: { [K in keyof T]: () => T[K] }): T {
  const deps = {} as T;
  for (const name of Object.keys(getters) as (keyof T & string)[]) {
    Object.defineProperty(deps, name, { get: getters[name], enumerable: true });
  }
  return deps;
}

/** The dependencies a use case declares (its first parameter). */
export type DepsOf<F extends (deps: never, ...rest: never[]) => unknown> = Parameters<F>[0];
