/**
 * The server-side key that authenticates list cursors and event iterators (CONTRACT §10, §13, §20): without it
 * nobody can make a cursor the service accepts, so every position that reaches the store is one the store itself
 * handed out.
 */
export interface CursorKey {
  /** The key that seals every cursor and iterator handed out now; the only one a list cursor is opened with. */
  get(): Promise<Uint8Array>;
  /**
   * The current key and the one it replaced at the last rotation, for opening event iterators: an integrator keeps an
   * iterator for up to EVENT_RETENTION_SECONDS, so one sealed before a rotation must still open (CONTRACT §20).
   * `refresh`: read them again now rather than from the cache (at most every few seconds), for a container that may
   * still hold the keys from before a rotation when an iterator sealed after it arrives.
   */
  keys(options?: { refresh?: boolean }): Promise<CursorKeys>;
}

export interface CursorKeys {
  current: Uint8Array;
  /** The key `current` replaced; `replacedAt` when it was replaced, when known (on AWS, the new version's date). */
  previous?: { key: Uint8Array; replacedAt?: Date };
}
