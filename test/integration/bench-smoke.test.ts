import { describe, expect, it } from 'vitest';
import { figures, renderMarkdown, runSuite, SMOKE } from '#bench/suite';

describe('npm run bench (smoke sizes)', () => {
  it('runs every benchmark beside its baseline and yields a number for every figure', async () => {
    const results = await runSuite(SMOKE);

    const values = figures(results);
    const markdown = renderMarkdown(results, { synthCheck: '', before: '' });

    expect(Object.entries(values).filter(([, value]) => !Number.isFinite(value))).toEqual([]);
    expect(Object.keys(values)).toEqual(
      expect.arrayContaining([
        'p1.get-health.bytes',
        'p1.reference.importMs',
        'p2.create.added.p99',
        'p3.raw.rowsPerSecond',
        'p3.xlsx.gzip.rowsPerSecond',
        'p3.jsonl.sizeMiB',
        'p4.created.p99',
        'p4.poll.ratio',
        'p5.createWrites',
        'p5.groupCost',
        'feed.latency.p99',
        'feed.read.ratio',
      ]),
    );
    for (const section of ['## P1', '## P2', '## P3', '## P4', '## P5']) expect(markdown).toContain(section);
  }, 240_000);
});
