import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localCounts } from '#bin/cli/ops-sources';
import { countBusiness } from '#shared/observability/metrics';

describe('countBusiness and the local counts of wpcrm status', () => {
  let dir: string;
  const previous = process.env.WPCRM_METRICS_FILE;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wpcrm-metrics-'));
    process.env.WPCRM_METRICS_FILE = join(dir, 'logs', 'metrics.log');
  });

  afterEach(async () => {
    if (previous === undefined) delete process.env.WPCRM_METRICS_FILE;
    else process.env.WPCRM_METRICS_FILE = previous;
    await rm(dir, { recursive: true, force: true });
  });

  it('writes one EMF record per outcome in the WpCrm namespace, with the service dimension', async () => {
    countBusiness('groupsCreated');

    const [line] = (await readFile(join(dir, 'logs', 'metrics.log'), 'utf8')).trim().split('\n');
    const record = JSON.parse(line!);
    expect(record).toMatchObject({
      _aws: {
        Timestamp: expect.any(Number),
        CloudWatchMetrics: [
          { Namespace: 'WpCrm', Dimensions: [['service']], Metrics: [{ Name: 'GroupsCreated', Unit: 'Count' }] },
        ],
      },
      service: 'wp-crm',
      GroupsCreated: 1,
    });
  });

  it('sums the records of every log since the given time, as CloudWatch would, ignoring other lines', async () => {
    countBusiness('groupsCreated');
    countBusiness('groupsCreated');
    countBusiness('reportsFailed');
    countBusiness('deliveriesSucceeded', 3);
    const old = {
      _aws: { Timestamp: 1, CloudWatchMetrics: [{ Namespace: 'WpCrm', Metrics: [{ Name: 'GroupsFailed' }] }] },
    };
    await appendFile(
      join(dir, 'logs', 'report-worker.log'),
      `{"level":"INFO","message":"report completed"}\n${JSON.stringify({ ...old, GroupsFailed: 5 })}\nnot json\n`,
    );

    const counts = await localCounts(join(dir, 'logs'), new Date(Date.now() - 3_600_000));

    expect(counts).toEqual({
      groupsCreated: 2,
      groupsFailed: 0,
      reportsCompleted: 0,
      reportsFailed: 1,
      deliveriesSucceeded: 3,
      deliveriesFailed: 0,
    });
  });
});
