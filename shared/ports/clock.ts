/** The time source. Tests pass a fake to reach window and expiry boundaries exactly. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export const epochSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);
