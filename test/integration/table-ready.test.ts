import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable, type RunningServer, startDynamo } from '#infra/local/servers';

const dataDir = mkdtempSync(join(tmpdir(), 'wpcrm-table-ready-'));
let server: RunningServer;
let client: DynamoDBClient;
beforeAll(async () => {
  server = await startDynamo({ port: 0, path: dataDir });
  client = new DynamoDBClient({
    region: 'eu-west-1',
    endpoint: server.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
});
afterAll(async () => {
  client.destroy();
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('ensureTable on dynalite', () => {
  it('returns only once the table takes writes: dynalite refuses a table still CREATING as not found', async () => {
    const refused: string[] = [];
    for (let i = 0; i < 40; i += 1) {
      const tableName = `ready-${i}`;
      await ensureTable(client, tableName);
      try {
        await client.send(new PutItemCommand({ TableName: tableName, Item: { PK: { S: 'ORG#1' }, SK: { S: 'ORG' } } }));
      } catch (error) {
        refused.push(`${tableName}: ${(error as Error).name}`);
      }
    }

    expect(refused).toEqual([]);
  });
});
