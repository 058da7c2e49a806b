import { ATTEMPTS_IN_FLIGHT_PER_SUBSCRIPTION, type LaneState, type Subscription } from './subscription.ts';

/**
 * Webhook targets cannot hold the shared dispatcher (CONTRACT §18): a subscription has at most 2 attempts in flight;
 * after 5 failed or timed-out attempts in a row it is in the slow lane, tried at most once a minute with a 3 s
 * timeout until an attempt succeeds. Deliveries that find no slot wait (their attempt is not spent); nothing is lost.
 */
export const SLOW_LANE_AFTER_FAILURES = 5;
export const SLOW_LANE_INTERVAL_SECONDS = 60;
export const SLOW_LANE_TIMEOUT_MS = 3_000;
export const ATTEMPT_TIMEOUT_MS = 10_000;
/**
 * An attempt that held its dispatcher this long, answered or not (a timeout among them), makes its receiver a slow
 * one: the subscription's attempts run in the slow receivers' own pool (queue webhook-slow-receivers) until one takes
 * less, so that a slow receiver holds the healthy receivers' pool for one attempt at most (CONTRACT §18, issue 35).
 */
export const SLOW_RECEIVER_MS = 3_000;
/** A receiver's `Retry-After` is honoured up to 10 h; a longer or malformed one leaves the retry schedule in charge. */
export const MAX_RETRY_AFTER_SECONDS = 10 * 3600;
/** How long a delivery that found both slots taken waits at least before it looks again (spread by the caller). */
const SLOT_WAIT_MS = 2_000;
/** A lease outlives its attempt's timeout by this much; an attempt that died frees its slot after it. */
const LEASE_MARGIN_MS = 20_000;

export const inSlowLane = (subscription: LaneState) => (subscription.recentFailures ?? 0) >= SLOW_LANE_AFTER_FAILURES;

const liveLeases = (subscription: LaneState, now: Date) =>
  (subscription.attemptLeases ?? []).filter((lease) => Date.parse(lease.until) > now.getTime());

/**
 * Whether an attempt may start now; otherwise when to look again. The answer on a possibly stale read only decides
 * whether to try the conditional write (takeLease), which decides for real.
 */
export function attemptSlot(subscription: LaneState, now: Date): { free: true } | { free: false; retryAt: Date } {
  const live = liveLeases(subscription, now);
  if (inSlowLane(subscription)) {
    const due = subscription.slowLaneNextAt ? Date.parse(subscription.slowLaneNextAt) : 0;
    if (live.length === 0 && due <= now.getTime()) return { free: true };
    const leaseEnds = Math.min(...live.map((lease) => Date.parse(lease.until)));
    return { free: false, retryAt: new Date(Math.max(due, live.length ? leaseEnds : 0, now.getTime() + 1_000)) };
  }
  if (live.length < ATTEMPTS_IN_FLIGHT_PER_SUBSCRIPTION) return { free: true };
  // A receiver that failed lately is likely to hold its slots until the attempts time out: look again then, not
  // sooner (every look is a read and a write); a healthy one frees them within moments.
  const attemptsEnd = Math.min(...live.map((lease) => Date.parse(lease.until) - LEASE_MARGIN_MS));
  const failing = (subscription.recentFailures ?? 0) > 0;
  return { free: false, retryAt: new Date(Math.max(now.getTime() + SLOT_WAIT_MS, failing ? attemptsEnd : 0)) };
}

/** The change that takes a lease (undefined when no slot is free): the store writes it conditionally. */
export function takeLease(subscription: Subscription, now: Date, leaseId: string): Partial<Subscription> | undefined {
  if (subscription.status !== 'active' || !attemptSlot(subscription, now).free) return undefined;
  const slow = inSlowLane(subscription);
  const until = new Date(now.getTime() + (slow ? SLOW_LANE_TIMEOUT_MS : ATTEMPT_TIMEOUT_MS) + LEASE_MARGIN_MS);
  return {
    attemptLeases: [...liveLeases(subscription, now), { leaseId, until: until.toISOString() }],
    ...(slow ? { slowLaneNextAt: new Date(now.getTime() + SLOW_LANE_INTERVAL_SECONDS * 1000).toISOString() } : {}),
  };
}

export const holdsLease = (subscription: LaneState | undefined, leaseId: string) =>
  (subscription?.attemptLeases ?? []).some((lease) => lease.leaseId === leaseId);

/**
 * Ends an attempt: frees its lease and records the outcome. A success leaves the slow lane; the fifth failure in a
 * row enters it (the next attempt a minute after this one). An attempt of SLOW_RECEIVER_MS or more makes the receiver
 * a slow one, a shorter one a healthy one again.
 */
export function settleLease(
  subscription: Subscription,
  now: Date,
  leaseId: string,
  outcome: 'succeeded' | 'failed' | 'abandoned',
  latencyMs = 0,
): Partial<Subscription> {
  const attemptLeases = liveLeases(subscription, now).filter((lease) => lease.leaseId !== leaseId);
  if (outcome === 'abandoned') return { attemptLeases };
  const slowReceiver = latencyMs >= SLOW_RECEIVER_MS ? true : undefined;
  if (outcome === 'succeeded') {
    return {
      attemptLeases,
      slowReceiver,
      recentFailures: 0,
      slowLaneNextAt: undefined,
      lastSuccessAt: now.toISOString(),
      failingSince: undefined,
    };
  }
  const recentFailures = (subscription.recentFailures ?? 0) + 1;
  const entering = recentFailures >= SLOW_LANE_AFTER_FAILURES && !inSlowLane(subscription);
  return {
    attemptLeases,
    slowReceiver,
    recentFailures,
    failingSince: subscription.failingSince ?? now.toISOString(),
    ...(entering ? { slowLaneNextAt: new Date(now.getTime() + SLOW_LANE_INTERVAL_SECONDS * 1000).toISOString() } : {}),
  };
}

/** The receiver's `Retry-After` in seconds if it is honoured: finite, not negative, at most 10 h. */
export function honouredRetryAfter(seconds: number | undefined): number | undefined {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds < 0 || seconds > MAX_RETRY_AFTER_SECONDS) {
    return undefined;
  }
  return seconds;
}

/**
 * What one container has seen of its subscriptions' slots: "no free slot before T". A delivery that comes back
 * before T is queued again without reading the table (a waiting delivery otherwise costs two reads and a send each
 * time it looks). Only a hint: the conditional lease write still decides, so a stale hint can make a delivery wait a
 * little longer than it had to, never attempt twice or be lost. The container forgets a subscription's hint when it
 * frees one of its slots, and every hint when it holds too many.
 */
export class SlotHints {
  readonly #busyUntil = new Map<string, number>();

  constructor(private readonly maxEntries = 10_000) {}

  /** When the subscription's next slot is expected to be free, if that is after `nowMs`. */
  busyUntil(webhookId: string, nowMs: number): number | undefined {
    const until = this.#busyUntil.get(webhookId);
    if (until === undefined) return undefined;
    if (until > nowMs) return until;
    this.#busyUntil.delete(webhookId);
    return undefined;
  }

  markBusy(webhookId: string, untilMs: number): void {
    if (this.#busyUntil.size >= this.maxEntries) this.#busyUntil.clear();
    this.#busyUntil.set(webhookId, untilMs);
  }

  forget(webhookId: string): void {
    this.#busyUntil.delete(webhookId);
  }
}
