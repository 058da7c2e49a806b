import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erasureBenchmark } from '#bench/erasure';
import { ensureTable, startDynamo } from '#infra/local/servers';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

describe('the erasure of an organisation costs its own items, not the table (CONTRACT §17)', () => {
  let endpoint = '';
  let close: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    const server = await startDynamo({ port: 0 });
    close = server.close;
    endpoint = server.endpoint;
    await ensureTable(new DynamoDBClient({ region: 'eu-west-1', endpoint, credentials }), 'wpcrm');
  });
  afterAll(async () => {
    await close();
  });

  it('reads about one item per item it erases in a table holding 100 times as many of others, and erases none of theirs', async () => {
    const figures = await erasureBenchmark({ endpoint, tableName: 'wpcrm', credentials, scale: 4, ratio: 100 });

    expect(figures.otherItems).toBeGreaterThanOrEqual(80 * figures.ownItems);
    // Its items, but for its status copy: the erasure deletes that last, on its own (tokens refused until then).
    expect(figures.itemsErased).toBe(figures.ownItems - 1);
    // Items read: every item erased once, plus the few a lookup returns (pointers, a partition's first page).
    expect(figures.itemsRead).toBeLessThanOrEqual(figures.itemsErased * 1.2 + 10);
    expect(figures.otherItemsAfter).toBe(figures.otherItems);
  }, 120_000);
});
