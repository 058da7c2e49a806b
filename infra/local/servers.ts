import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import S3rver from 's3rver';
import { TABLE_INDEXES, TABLE_KEYS } from '#shared/adapters/dynamodb/table';
import { guardLoopback } from './loopback-guard.ts';
import type { LocalCredentials } from './sigv4.ts';

export interface RunningServer {
  endpoint: string;
  port: number;
  close(): Promise<void>;
}

const listen = (server: Server, port: number) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });

/**
 * dynalite on loopback; `path` persists the data (LevelDB), none keeps it in memory. `guarded` (the stacks: their key
 * of this run) lets only the stack's own clients signed with that key in (infra/local/loopback-guard.ts).
 */
export async function startDynamo(options: {
  port: number;
  path?: string;
  guarded?: LocalCredentials;
}): Promise<RunningServer> {
  const server = dynalite({ path: options.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const gate = requestGate(server);
  let port = 0;
  if (options.guarded) {
    guardLoopback(server, {
      port: () => port,
      readsBody: true,
      credentials: options.guarded,
      refuse: (response, reason) => {
        response.writeHead(403, { 'content-type': 'application/x-amz-json-1.0' });
        response.end(JSON.stringify({ __type: 'com.amazon.coral.service#AccessDeniedException', message: reason }));
      },
    });
  }
  port = await listen(server, options.port);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    close: async () => {
      await gate.drain();
      // No request is being served now; answers already written get a moment to leave before connections are cut.
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 500).unref();
      });
    },
  };
}

/**
 * DynamoDB applies a write whole or not at all; dynalite does not: one UpdateItem is several LevelDB operations
 * (read, index entries, item), and closing its database between two of them leaves a torn item that no real table
 * can hold (an index entry without its item). So a stop first drains: requests that arrive from then on are cut
 * before dynalite sees them (the client gets a reset and retries, as in an outage), the ones being served finish,
 * and only then does the database close.
 */
function requestGate(server: Server, maxDrainMs = 10_000) {
  const handlers = server.listeners('request') as ((request: IncomingMessage, response: ServerResponse) => void)[];
  server.removeAllListeners('request');
  let closing = false;
  let active = 0;
  let drained: (() => void) | undefined;
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (closing) return void request.socket.destroy();
    active += 1;
    let served = false;
    const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
    // dynalite ends the response once its last write is done, also for a client that has gone away.
    response.end = ((...args: unknown[]) => {
      if (!served) {
        served = true;
        active -= 1;
        if (active === 0) drained?.();
      }
      return end(...args);
    }) as ServerResponse['end'];
    for (const handler of handlers) handler.call(server, request, response);
  });
  return {
    drain: () => {
      closing = true;
      if (active === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        drained = resolve;
        setTimeout(resolve, maxDrainMs).unref();
      });
    },
  };
}

/**
 * Waits until the table and its indexes are ACTIVE. dynalite, like DynamoDB, answers CreateTable while the table is
 * still CREATING and refuses reads and writes on it as ResourceNotFoundException until then; with a data directory
 * the ACTIVE status is stored after the answer, so a write sent at once can be refused.
 */
export async function waitForActiveTable(client: DynamoDBClient, tableName: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const indexes = Table?.GlobalSecondaryIndexes ?? [];
    if (Table?.TableStatus === 'ACTIVE' && indexes.every((index) => index.IndexStatus === 'ACTIVE')) return;
    if (Date.now() > deadline)
      throw new Error(`table ${tableName} is still ${Table?.TableStatus} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Creates the service table unless it exists (the same keys and indexes the CDK stack declares); returns once it is ACTIVE. */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    await waitForActiveTable(client, tableName);
    return;
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  const attributes = new Set<string>([TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey]);
  for (const index of TABLE_INDEXES) {
    attributes.add(index.partitionKey);
    attributes.add(index.sortKey);
  }
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: TABLE_INDEXES.map((index) => ({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
    }),
  );
  await waitForActiveTable(client, tableName);
}

/** s3rver on loopback, file-backed in `directory`, with the report bucket created; `guarded` as startDynamo. */
export async function startS3(options: {
  port: number;
  directory: string;
  bucket: string;
  guarded?: LocalCredentials;
}): Promise<RunningServer> {
  const s3rver = new S3rver({
    port: options.port,
    address: '127.0.0.1',
    silent: true,
    directory: options.directory,
    configureBuckets: [{ name: options.bucket }],
  });
  // What s3rver's run() does, with the guard in front before the port opens.
  await s3rver.configureBuckets();
  const server = createServer();
  server.on('request', s3rver.callback());
  let port = 0;
  const guarded = options.guarded;
  if (guarded) {
    // s3rver looks a SigV4 request's key id up in its own registry (the guard has checked the signature).
    s3rverAccounts().DUMMY_ACCOUNT.createKeyPair(guarded.accessKeyId, guarded.secretAccessKey);
    guardLoopback(server, {
      port: () => port,
      readsBody: false,
      credentials: guarded,
      refuse: (response, reason) => {
        response.writeHead(403, { 'content-type': 'application/xml' });
        response.end(
          `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>${reason}</Message></Error>`,
        );
      },
    });
  }
  port = await listen(server, options.port);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        if (guarded) s3rverAccounts().DUMMY_ACCOUNT.revokeAccessKey(guarded.accessKeyId);
      }),
  };
}

/** s3rver's account registry (lib/models/account.js): the key ids its requests may name. */
function s3rverAccounts(): {
  DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void; revokeAccessKey(id: string): void };
} {
  return createRequire(import.meta.url)('s3rver/lib/models/account.js');
}
