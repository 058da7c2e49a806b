import {
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  type ScanCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Channel, ClientCredential, Organisation, OrgStatus } from '#shared/domain/orgs/model';
import type { ChannelPatch, OrgAdminStore, OrgCounts, OrgEraseStore, OrgItem } from '#shared/ports/org-admin-store';
import { applied, isConditionalCheckFailed } from './client.ts';
import { chatKeys, keys, reportKeys, webhookKeys, withoutKeys } from './keys.ts';

type Item = Record<string, unknown>;

export class DynamoOrgAdminStore implements OrgAdminStore, OrgEraseStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async listOrgs(): Promise<Organisation[]> {
    const orgs: Organisation[] = [];
    await this.#scan(
      {
        FilterExpression: 'SK = :org AND begins_with(PK, :prefix)',
        ExpressionAttributeValues: { ':org': 'ORG', ':prefix': 'ORG#' },
      },
      async (items) => {
        for (const item of items) orgs.push(withoutKeys<Organisation>(item));
      },
    );
    return orgs.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.orgId.localeCompare(b.orgId));
  }

  /**
   * The organisation item first (conditional: it exists and is not being deleted), then its status copy. The embedded
   * DynamoDB has no transactions; an interruption in between is repaired by running the command again.
   */
  async setOrgStatus(orgId: string, status: OrgStatus, at: string): Promise<Organisation | undefined> {
    try {
      const result = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.org(orgId),
          UpdateExpression: 'SET #status = :status, statusChangedAt = :at',
          // A deletion in progress is never undone by a resume.
          ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(deletingAt)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':status': status, ':at': at },
          ReturnValues: 'ALL_NEW',
        }),
      );
      await this.#putStatus(orgId, status, at);
      return withoutKeys<Organisation>(result.Attributes ?? {});
    } catch (error) {
      if (isConditionalCheckFailed(error)) return undefined;
      throw error;
    }
  }

  async #putStatus(orgId: string, status: OrgStatus, at: string): Promise<void> {
    await this.db.send(
      new PutCommand({ TableName: this.tableName, Item: { ...keys.orgStatus(orgId), status, statusChangedAt: at } }),
    );
  }

  async getOrgStatus(orgId: string): Promise<OrgStatus | undefined> {
    return (await this.#get<{ status: OrgStatus }>(keys.orgStatus(orgId)))?.status;
  }

  async countOrg(orgId: string): Promise<OrgCounts> {
    const { PK } = keys.org(orgId);
    const inPartition = (prefix: string) =>
      this.#count({
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': PK, ':prefix': prefix },
      });
    const [channels, reports, subscriptions, groups, credentials] = await Promise.all([
      inPartition(keys.channelPrefix(orgId).SKPrefix),
      inPartition(reportKeys.reportPrefix),
      inPartition(webhookKeys.subscriptionPrefix),
      this.#count({
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk',
        ExpressionAttributeValues: { ':pk': chatKeys.groupIndexPartition(orgId) },
      }),
      this.listCredentials(orgId).then((found) => found.length),
    ]);
    return { channels, credentials, groups, reports, subscriptions };
  }

  async listCredentials(orgId: string): Promise<ClientCredential[]> {
    const credentials: ClientCredential[] = [];
    await this.#scan(
      {
        FilterExpression: 'SK = :client AND orgId = :org',
        ExpressionAttributeValues: { ':client': 'CLIENT', ':org': orgId },
      },
      async (items) => {
        for (const item of items) credentials.push(withoutKeys<ClientCredential>(item));
      },
    );
    return credentials.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async revokeCredential(clientId: string, at: string): Promise<boolean> {
    return applied(
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.credential(clientId),
          UpdateExpression:
            'SET revokedAt = if_not_exists(revokedAt, :at) REMOVE previousSecretHash, previousSecretExpiresAt',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':at': at },
        }),
      ),
    );
  }

  async rotateCredential(
    clientId: string,
    expectedHash: string,
    change: { secretHash: string; previousSecretExpiresAt?: string; at: string },
  ): Promise<boolean> {
    const keep = change.previousSecretExpiresAt !== undefined;
    return applied(
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.credential(clientId),
          UpdateExpression: keep
            ? 'SET secretHash = :hash, previousSecretHash = :old, previousSecretExpiresAt = :until, rotatedAt = :at'
            : 'SET secretHash = :hash, rotatedAt = :at REMOVE previousSecretHash, previousSecretExpiresAt',
          ConditionExpression: 'attribute_exists(PK) AND secretHash = :old AND attribute_not_exists(revokedAt)',
          ExpressionAttributeValues: {
            ':hash': change.secretHash,
            ':old': expectedHash,
            ':at': change.at,
            ...(keep ? { ':until': change.previousSecretExpiresAt } : {}),
          },
        }),
      ),
    );
  }

  async listChannels(orgId: string): Promise<Channel[]> {
    const { PK, SKPrefix } = keys.channelPrefix(orgId);
    const channels: Channel[] = [];
    await this.#query(
      {
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': PK, ':prefix': SKPrefix },
      },
      async (items) => {
        for (const item of items) channels.push(withoutKeys<Channel>(item));
      },
    );
    return channels;
  }

  async findChannel(channelId: string): Promise<Channel | undefined> {
    let found: Channel | undefined;
    await this.#scan(
      {
        FilterExpression: 'SK = :sk AND begins_with(PK, :prefix)',
        ExpressionAttributeValues: { ':sk': `CHANNEL#${channelId}`, ':prefix': 'ORG#' },
      },
      async (items) => {
        if (items[0]) found = withoutKeys<Channel>(items[0]);
      },
    );
    return found;
  }

  async updateChannel(
    orgId: string,
    channelId: string,
    changes: ChannelPatch,
    at: string,
  ): Promise<Channel | undefined> {
    const set: string[] = ['updatedAt = :at'];
    const remove: string[] = [];
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':at': at };
    for (const [field, value] of Object.entries(changes)) {
      if (value === undefined) continue;
      names[`#${field}`] = field;
      if (value === null) remove.push(`#${field}`);
      else {
        set.push(`#${field} = :${field}`);
        values[`:${field}`] = value;
      }
    }
    try {
      const result = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.channel(orgId, channelId),
          UpdateExpression: `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeNames: Object.keys(names).length ? names : undefined,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return result.Attributes ? withoutKeys<Channel>(result.Attributes) : undefined;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return undefined;
      throw error;
    }
  }

  async markDeleting(orgId: string, at: string): Promise<boolean> {
    const marked = await applied(
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.org(orgId),
          UpdateExpression: 'SET deletingAt = if_not_exists(deletingAt, :at)',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':at': at },
        }),
      ),
    );
    // Its tokens are refused and its work waits while the erasure runs.
    if (marked) await this.#putStatus(orgId, 'suspended', at);
    return marked;
  }

  async findItems(
    orgId: string,
    identifiers: readonly string[],
    onPage: (items: OrgItem[]) => Promise<void>,
  ): Promise<void> {
    const traces = [orgId, ...identifiers];
    await this.#scan({}, async (items) => {
      const found: OrgItem[] = [];
      for (const item of items) {
        if (isDefining(item, orgId)) continue;
        const text = JSON.stringify(item);
        if (!traces.some((trace) => text.includes(trace))) continue;
        found.push({ key: { PK: item.PK, SK: item.SK }, kind: kindOf(item, orgId) });
      }
      if (found.length) await onPage(found);
    });
  }

  async definingItems(orgId: string): Promise<{ credentials: OrgItem[]; channels: OrgItem[]; org: OrgItem[] }> {
    const credentials = (await this.listCredentials(orgId)).flatMap((credential) => [
      {
        key: keys.loginAttempts({ kind: 'client', id: credential.clientId }),
        kind: 'loginAttempts',
        id: credential.clientId,
      },
      { key: keys.credential(credential.clientId), kind: 'credentials', id: credential.clientId },
    ]);
    const channels = (await this.listChannels(orgId)).map((channel) => ({
      key: keys.channel(orgId, channel.channelId),
      kind: 'channels',
      id: channel.channelId,
      secretId: channel.accessTokenSecretId,
    }));
    const org = [
      { key: keys.orgStatus(orgId), kind: 'orgStatus' },
      { key: keys.org(orgId), kind: 'organisation' },
    ];
    return { credentials, channels, org };
  }

  async deleteItems(itemKeys: Record<string, unknown>[]): Promise<void> {
    for (let start = 0; start < itemKeys.length; start += 25) {
      let requests = itemKeys.slice(start, start + 25).map((Key) => ({ DeleteRequest: { Key } }));
      for (let attempt = 0; requests.length; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 50 * 2 ** attempt)));
        const result = await this.db.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: requests } }));
        requests = (result.UnprocessedItems?.[this.tableName] ?? []) as typeof requests;
        if (attempt > 10 && requests.length) throw new Error('the table keeps refusing deletes (throttled)');
      }
    }
  }

  async #get<T>(key: Record<string, string>): Promise<T | undefined> {
    const result = await this.db.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
    return result.Item ? withoutKeys<T>(result.Item) : undefined;
  }

  async #scan(input: Omit<ScanCommandInput, 'TableName'>, onPage: (items: Item[]) => Promise<void>): Promise<void> {
    let ExclusiveStartKey: Item | undefined;
    do {
      const page = await this.db.send(
        new ScanCommand({ ...input, TableName: this.tableName, ExclusiveStartKey, ConsistentRead: true }),
      );
      await onPage(page.Items ?? []);
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
  }

  async #query(input: Omit<QueryCommandInput, 'TableName'>, onPage: (items: Item[]) => Promise<void>) {
    let ExclusiveStartKey: Item | undefined;
    do {
      const page = await this.db.send(new QueryCommand({ ...input, TableName: this.tableName, ExclusiveStartKey }));
      await onPage(page.Items ?? []);
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
  }

  async #count(input: Omit<QueryCommandInput, 'TableName'>): Promise<number> {
    let count = 0;
    let ExclusiveStartKey: Item | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({ ...input, Select: 'COUNT', TableName: this.tableName, ExclusiveStartKey }),
      );
      count += page.Count ?? 0;
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return count;
  }
}

/** The items the erasure removes last: they name the identifiers every other trace is found by. */
function isDefining(item: Item, orgId: string): boolean {
  const { PK, SK } = item as { PK: string; SK: string };
  if (PK === `ORG#${orgId}`) return SK === 'ORG' || SK.startsWith('CHANNEL#');
  if (PK === keys.orgStatus(orgId).PK) return true;
  return PK.startsWith('CLIENT#') && SK === 'CLIENT';
}

/** The per-kind name an erased item is counted under (CONTRACT §17: what `org delete` erased per kind). */
function kindOf(item: Item, orgId: string): string {
  const PK = String(item.PK);
  const SK = String(item.SK);
  const org = `ORG#${orgId}`;
  if (PK === org) {
    if (SK.startsWith('GRQ#')) return 'groupRequests';
    if (SK.startsWith('RPTWIN#')) return 'reportWindows';
    if (SK.startsWith('RPT#')) return 'reports';
    if (SK.startsWith('WHK')) return 'subscriptions';
    return 'other';
  }
  if (PK === `${org}#CHAT`) return item.chatType === 'GROUP' ? 'groups' : 'chats';
  if (PK.startsWith(`${org}#CHAT#`)) return SK.startsWith('MSG#') ? 'messages' : 'joinRequests';
  if (PK.startsWith(`${org}#WHK#`)) return 'deliveries';
  if (PK.startsWith(`${org}#`)) return 'records';
  if (PK.startsWith('IDEM#')) return 'idempotencyKeys';
  if (PK.startsWith('RATE#')) return 'rateWindows';
  if (PK.startsWith('EVENT#')) return 'events';
  if (PK.startsWith('WA')) return 'networkLinks';
  if (PK.startsWith('CLIENT#')) return 'loginAttempts';
  return 'other';
}
