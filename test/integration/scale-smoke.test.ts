import { describe, expect, it } from 'vitest';
import { runScale } from '#bench/scale';

describe('npm run scale (a few organisations)', () => {
  it("delivers every organisation's events to its own receiver, and keeps the outbox's index writes off one partition", async () => {
    const report = await runScale({ organisations: 4, messagesPerOrganisation: 1, concurrency: 4 });

    const indexPartitions = report.dynamodb.byShape.map((row) => row.partition);

    expect(report.deliveries).toEqual({ expected: 20, delivered: 20, lost: 0, foreign: 0 });
    expect(indexPartitions).not.toContain('GSI1 EVENT#UNPUBLISHED');
    expect(indexPartitions).toContain('GSI1 EVENT#UNPUBLISHED#*');
    for (const phase of Object.values(report.phases)) expect(phase.writeUnitsPerOperation).toBeGreaterThan(0);
  }, 120_000);
});
