import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { ensureTable, startDynamo } from '#infra/local/servers';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';

export interface TestTable {
  db: DynamoDBDocumentClient;
  tableName: string;
}

/** A real dynalite on a free loopback port with the service table, for the file's tests. */
export function useDynamo(): TestTable {
  const handle = {} as TestTable;
  let close: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    const server = await startDynamo({ port: 0 });
    close = server.close;
    const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
    await ensureTable(new DynamoDBClient({ region: 'eu-west-1', endpoint: server.endpoint, credentials }), 'wpcrm');
    handle.db = createDocumentClient({ region: 'eu-west-1', endpoint: server.endpoint, credentials });
    handle.tableName = 'wpcrm';
  });
  afterAll(async () => {
    await close();
  });
  return handle;
}
