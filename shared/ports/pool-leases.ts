/** One invocation's place in an organisation's share of a worker pool (shared/queue/org-share.ts). */
export interface PoolLease {
  orgId: string;
  /** The pool: the queue whose consumer invocations are counted. */
  pool: string;
  /** The invocation's id (its Lambda request id): one lease per invocation and organisation. */
  leaseId: string;
}

/**
 * The invocations each organisation holds in each shared pool, counted across every container: a lease per
 * invocation, taken with a conditional write that never lets the count pass the share, and ending by itself at
 * `untilMs` (an invocation that crashed or timed out never gives its lease back; none runs past its timeout).
 */
export interface PoolLeases {
  /** Takes a lease unless the organisation already holds `share` live ones; false then (nothing written). */
  acquire(lease: PoolLease, options: { share: number; untilMs: number; nowMs: number }): Promise<boolean>;
  /** Gives a lease back; one that ended meanwhile (and was taken back by an acquire) is ignored. */
  release(lease: PoolLease): Promise<void>;
  /** The live leases of the organisation in the pool (tests and operators). */
  held(orgId: string, pool: string, nowMs: number): Promise<number>;
}
