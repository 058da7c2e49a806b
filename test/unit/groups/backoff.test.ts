import { describe, expect, it } from 'vitest';
import { backoffSeconds } from '#shared/queue/retry';

describe('backoffSeconds', () => {
  it('doubles per receive within ±20 % jitter and is capped at 15 minutes', () => {
    expect(backoffSeconds(5, 1, 0, () => 0.5)).toBe(5);
    expect(backoffSeconds(5, 3, 0, () => 0.5)).toBe(20);
    expect(backoffSeconds(5, 3, 0, () => 0)).toBe(16);
    expect(backoffSeconds(5, 3, 0, () => 1)).toBe(24);
    expect(backoffSeconds(5, 40, 0, () => 0.5)).toBe(900);
  });

  it('waits at least as long as the network asked (Retry-After)', () => {
    expect(backoffSeconds(1, 1, 120, () => 0.5)).toBe(120);
  });
});
