/** Thrown by a queue use case to have its message retried after `delaySeconds` (set as the message's visibility). */
export class RetryLater extends Error {
  constructor(
    readonly delaySeconds: number,
    message: string,
  ) {
    super(message);
    this.name = 'RetryLater';
  }
}

const MAX_BACKOFF_SECONDS = 900;

/** Capped exponential backoff with ±20 % jitter: base, 2×base, 4×base … for receive 1, 2, 3 … */
export function backoffSeconds(baseSeconds: number, receiveCount: number, atLeastSeconds = 0, random = Math.random) {
  const exponential = Math.min(MAX_BACKOFF_SECONDS, baseSeconds * 2 ** Math.max(0, receiveCount - 1));
  const jittered = exponential * (0.8 + random() * 0.4);
  return Math.max(atLeastSeconds, Math.round(jittered * 10) / 10);
}
