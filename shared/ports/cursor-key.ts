/**
 * The server-side key that authenticates list cursors (CONTRACT §10, §13): without it nobody can make a cursor the
 * service accepts, so every position that reaches the store is one the store itself handed out.
 */
export interface CursorKey {
  get(): Promise<Uint8Array>;
}
