import { useEffect, useState } from 'preact/hooks';

/** A value that components re-render on (a signal in a dozen lines, instead of a dependency). */
export interface Signal<T> {
  readonly value: T;
  set(value: T): void;
  subscribe(listener: () => void): () => void;
}

export function signal<T>(initial: T): Signal<T> {
  let value = initial;
  const listeners = new Set<() => void>();
  return {
    get value() {
      return value;
    },
    set(next) {
      value = next;
      for (const listener of [...listeners]) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/**
 * The signal's value, re-rendering on each change. Effects run after the browser paints, so a change made between the
 * first render and the subscription (a sign-in answer that came back first) would be missed: the subscription looks
 * again at once.
 */
export function useSignal<T>(source: Signal<T>): T {
  const [, render] = useState(0);
  const value = source.value;
  useEffect(() => {
    const unsubscribe = source.subscribe(() => render((count) => count + 1));
    if (source.value !== value) render((count) => count + 1);
    return unsubscribe;
  }, [source]);
  return value;
}
