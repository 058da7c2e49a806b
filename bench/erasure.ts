import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { DynamoCrmStore } from '#shared/adapters/dynamodb/crm-store';
import { DynamoIdentityStore } from '#shared/adapters/dynamodb/identity-store';
import { DynamoOrgAdminStore } from '#shared/adapters/dynamodb/org-admin-store';
import { generateRecords } from '#shared/domain/crm/generate-records';
import { eraseOrg } from '#shared/domain/orgs/erase-org';
import type { OrgFiles } from '#shared/ports/org-admin-store';

export interface ErasureFigures {
  /** Items the erased organisation had. */
  ownItems: number;
  /** Items of the other organisations in the table. */
  otherItems: number;
  /** Items the erasure read (every item a Query, Get or Scan returned). */
  itemsRead: number;
  /** Items it deleted in batches (the delete requests it sent; a retried one counts again): all but its status copy. */
  itemsErased: number;
  /** itemsRead / itemsErased: ≈ 1 when the erasure reads only the organisation's own items. */
  readPerErased: number;
  /** The other organisations' items afterwards (must equal otherItems). */
  otherItemsAfter: number;
  ms: number;
}

/**
 * The erasure's cost (CONTRACT §17, `org delete`): one organisation of `scale` generated chats and contacts (with
 * their tickets, calls, goals, bookings, follow-ups and responses) among `others` organisations of `scale × ratio /
 * others` each, so the table holds `ratio` times the erased organisation's items from others. Every item the erasure
 * reads is counted at the DynamoDB client (a middleware on its responses).
 */
export async function erasureBenchmark(options: {
  endpoint: string;
  tableName: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  scale: number;
  ratio: number;
  others?: number;
}): Promise<ErasureFigures> {
  const client = () =>
    createDocumentClient({ region: 'eu-west-1', endpoint: options.endpoint, credentials: options.credentials });
  const setup = client();
  const identity = new DynamoIdentityStore(setup, options.tableName);
  const crm = new DynamoCrmStore(setup, options.tableName);
  const now = new Date().toISOString();
  const newOrg = async (name: string, scale: number, seed: number) => {
    const orgId = crypto.randomUUID();
    await identity.createOrg({ orgId, name, status: 'active', createdAt: now });
    await identity.createCredential({
      clientId: `cli_bench${seed}${Date.now()}`,
      orgId,
      roles: ['ACCOUNT_OWNER'],
      secretHash: 'scrypt$bench',
      createdAt: now,
    });
    const records = [...generateRecords({ scale, seed })];
    for (let start = 0; start < records.length; start += 500) {
      await crm.putRecords(orgId, records.slice(start, start + 500));
    }
    return orgId;
  };
  const count = async (orgId: string) => {
    let items = 0;
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await setup.send(new ScanCommand({ TableName: options.tableName, ExclusiveStartKey }));
      items += (page.Items ?? []).filter((item) => JSON.stringify(item).includes(orgId)).length;
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return items;
  };

  const doomed = await newOrg('Erased', options.scale, 1);
  const others = options.others ?? 4;
  const otherIds: string[] = [];
  for (let index = 0; index < others; index += 1) {
    otherIds.push(await newOrg(`Other ${index}`, Math.ceil((options.scale * options.ratio) / others), index + 2));
  }
  const ownItems = await count(doomed);
  const otherCounts = async () => (await Promise.all(otherIds.map(count))).reduce((sum, items) => sum + items, 0);
  const otherItems = await otherCounts();

  const measured = client();
  let itemsRead = 0;
  let itemsErased = 0;
  measured.middlewareStack.add(
    (next) => async (args) => {
      const requests = (args.input as { RequestItems?: Record<string, unknown[]> }).RequestItems;
      for (const writes of Object.values(requests ?? {})) itemsErased += writes.length;
      const result = await next(args);
      const output = (result.output ?? {}) as { Items?: unknown[]; Item?: unknown; Count?: number };
      itemsRead += output.Items?.length ?? (output.Item ? 1 : 0);
      return result;
    },
    { step: 'initialize', name: 'countItemsRead' },
  );
  const noFiles: OrgFiles = { list: async () => [], delete: async () => undefined };
  const started = performance.now();
  await eraseOrg(
    {
      clock: { now: () => new Date() },
      store: new DynamoOrgAdminStore(measured, options.tableName),
      files: noFiles,
      // Nothing else writes for the organisation here: no request or job to wait out.
      drainSeconds: 0,
    },
    { orgId: doomed },
  );
  const ms = performance.now() - started;
  const otherItemsAfter = await otherCounts();
  setup.destroy();
  measured.destroy();
  return {
    ownItems,
    otherItems,
    itemsRead,
    itemsErased,
    readPerErased: itemsRead / Math.max(1, itemsErased),
    otherItemsAfter,
    ms,
  };
}

/** erasureBenchmark on a dynalite of its own (a free loopback port), stopped afterwards: `npm run bench`'s row. */
export async function erasureOnDynalite(options: { scale: number; ratio: number }): Promise<ErasureFigures> {
  const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
  const { ensureTable, startDynamo } = await import('#infra/local/servers');
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const server = await startDynamo({ port: 0 });
  try {
    await ensureTable(
      new DynamoDBClient({ region: 'eu-west-1', endpoint: server.endpoint, credentials }),
      'wpcrm-erasure',
    );
    return await erasureBenchmark({ endpoint: server.endpoint, tableName: 'wpcrm-erasure', credentials, ...options });
  } finally {
    await server.close();
  }
}
