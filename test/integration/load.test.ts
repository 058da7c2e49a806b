import { describe, expect, it } from 'vitest';
import { runLoad } from '#bench/load';

describe('load on loopback (npm run load, short)', () => {
  it('gives one 202 and only 409s for one report type, and stores every acknowledged webhook once (K-3)', async () => {
    const { reports, webhooks } = await runLoad({ connections: 10, seconds: 30, amount: 100 });

    expect(reports.accepted).toBe(1);
    expect(reports.refused).toBe(reports.requests - 1);
    expect([reports.other, reports.errors, reports.timeouts]).toEqual([0, 0, 0]);
    expect(Object.keys(webhooks.statusCodes)).toEqual(['200']);
    expect([webhooks.errors, webhooks.timeouts]).toEqual([0, 0]);
    expect(webhooks.acknowledged).toBe(webhooks.generated);
    expect(webhooks.stored).toBe(webhooks.acknowledged);
    expect([webhooks.lost, webhooks.unexpected]).toEqual([0, 0]);
  });
});
