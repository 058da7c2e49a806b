import {
  BatchWriteCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  type ScanCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Channel, ClientCredential, Organisation, OrgStatus, OrgStatusCopy } from '#shared/domain/orgs/model';
import { REPORT_TYPES } from '#shared/domain/reports/records';
import type { ChannelPatch, OrgAdminStore, OrgCounts, OrgEraseStore, OrgItem } from '#shared/ports/org-admin-store';
import { applied, isConditionalCheckFailed } from './client.ts';
import {
  chatKeys,
  consoleKeys,
  crmKeys,
  feedKeys,
  groupKeys,
  heldKeys,
  keys,
  limitKeys,
  outboxKeys,
  poolKeys,
  RATE_SCOPES,
  reportKeys,
  scheduleKeys,
  webhookKeys,
  withoutKeys,
} from './keys.ts';

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
      if (!(await this.#putStatus(orgId, status, at))) return undefined;
      return withoutKeys<Organisation>(result.Attributes ?? {});
    } catch (error) {
      if (isConditionalCheckFailed(error)) return undefined;
      throw error;
    }
  }

  /** Never over `deleting`: an erasure that began after the organisation item was read is not undone. */
  #putStatus(orgId: string, status: OrgStatus, at: string): Promise<boolean> {
    return applied(
      this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...keys.orgStatus(orgId), status, statusChangedAt: at },
          ConditionExpression: 'attribute_not_exists(PK) OR #status <> :deleting',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':deleting': 'deleting' },
        }),
      ),
    );
  }

  async getOrgStatus(orgId: string): Promise<OrgStatusCopy | undefined> {
    return (await this.#get<{ status: OrgStatusCopy }>(keys.orgStatus(orgId)))?.status;
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

  /** Its credentials, from the pointers in its own partition (keys.credentialOfOrg), oldest first. */
  async listCredentials(orgId: string): Promise<ClientCredential[]> {
    const credentials: ClientCredential[] = [];
    for (const clientId of await this.#credentialIds(orgId)) {
      const credential = await this.#get<ClientCredential>(keys.credential(clientId));
      if (credential?.orgId === orgId) credentials.push(credential);
    }
    return credentials.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async #credentialIds(orgId: string): Promise<string[]> {
    const ids: string[] = [];
    await this.#query(
      {
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.org(orgId).PK, ':prefix': keys.credentialOfOrgPrefix },
      },
      async (items) => {
        for (const item of items) ids.push(String(item.SK).slice(keys.credentialOfOrgPrefix.length));
      },
    );
    return ids;
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

  async markDeleting(orgId: string, at: string): Promise<string | undefined> {
    const [copy, org] = await Promise.all([
      this.#get<{ status: OrgStatusCopy }>(keys.orgStatus(orgId)),
      this.#get<Organisation>(keys.org(orgId)),
    ]);
    if (!copy && !org) return undefined;
    // The copy first: it is what every token check and worker reads (afresh), so the refusal starts with this write.
    const marked = await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.orgStatus(orgId),
        UpdateExpression: 'SET #status = :deleting, deletingAt = if_not_exists(deletingAt, :at), statusChangedAt = :at',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':deleting': 'deleting', ':at': at },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const since = String(marked.Attributes?.deletingAt ?? at);
    // Then the organisation item, for `org list` and `org show` (absent once an earlier run erased it).
    await applied(
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.org(orgId),
          UpdateExpression: 'SET deletingAt = if_not_exists(deletingAt, :at)',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':at': since },
        }),
      ),
    );
    return since;
  }

  async deleteStatusCopy(orgId: string): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.tableName, Key: keys.orgStatus(orgId) }));
  }

  /**
   * Every item of the organisation but its defining ones, found from its own keys (CONTRACT §17: never a scan, never
   * a text search), each group of items reported before the items that name it, so that an interrupted erasure finds
   * what is left by the same path:
   * 1. each chat's conversation (messages, receipts, join requests), with the network links and held statuses of the
   *    wamids its messages name; the chat's group link; the chat;
   * 2. each group request's network link and held confirmation, then the request;
   * 3. each subscription's deliveries (a deleted subscription left a marker for them), then the subscription;
   * 4. its CRM records of every kind, the contacts' chat edges;
   * 5. the rest of its own partition (reports, report windows, counters, markers);
   * 6. its idempotency keys, its rate windows of every scope, its outbox, its event feed, its console links and
   *    sessions, its pool leases, the notifications held for its numbers.
   * A link under a global key (WAGROUP, WAMSG, WAREQ) is reported only when it names this organisation.
   */
  async findItems(orgId: string, onPage: (items: OrgItem[]) => Promise<void>): Promise<void> {
    const org = keys.org(orgId).PK;
    const emit = async (items: Item[]) => {
      if (items.length > 0) await onPage(items.map((item) => ({ key: keyOf(item), kind: kindOf(item, orgId) })));
    };
    const ours = (items: Item[]) => items.filter((item) => item.orgId === undefined || item.orgId === orgId);

    await this.#partition(crmKeys.timeIndexPartition(orgId, 'CHAT'), async (chats) => {
      for (const chat of chats) {
        await this.#partition(chatKeys.conversation(orgId, String(chat.chatId)), async (items) => {
          for (const wamid of new Set(items.map((item) => item.networkMessageId).filter(Boolean))) {
            await this.#partition(chatKeys.networkMessage(String(wamid)).PK, async (links) => emit(ours(links)));
          }
          await emit(items);
        });
        if (chat.externalChatId) {
          await this.#partition(chatKeys.externalChat(String(chat.externalChatId)).PK, async (links) =>
            emit(ours(links)),
          );
        }
        await emit([chat]);
      }
    });

    await this.#partition(
      org,
      async (items) => {
        for (const request of items.filter((item) => String(item.SK).startsWith('GRQ#'))) {
          if (request.networkRequestId) {
            const link = groupKeys.networkRequest(String(request.networkRequestId)).PK;
            await this.#partition(link, async (links) => emit(ours(links)));
          }
          await emit([request]);
        }
      },
      'GRQ#',
    );

    await this.#partition(
      org,
      async (items) => {
        for (const item of items) {
          const webhookId = /^WHK(?:DELETED)?#(.+)$/.exec(String(item.SK))?.[1];
          if (webhookId) await this.#partition(webhookKeys.deliveries(orgId, webhookId), emit);
          await emit([item]);
        }
      },
      'WHK',
    );

    for (const kind of [...REPORT_TYPES.filter((type) => type !== 'CHAT'), 'CONTACT_CHATS']) {
      await this.#partition(crmKeys.timeIndexPartition(orgId, kind), emit);
    }

    await this.#partition(org, async (items) => emit(items.filter((item) => !isDefining(item, orgId))));

    await this.#partition(limitKeys.idempotencyPartition(orgId), emit);
    for (const scope of RATE_SCOPES) await this.#partition(limitKeys.ratePartition(scope, orgId), emit);
    for (const partition of outboxKeys.partitions(orgId)) await this.#partition(partition, emit);
    await this.#partition(feedKeys.partition(orgId), emit);
    await this.#partition(consoleKeys.partition(orgId), emit);
    await this.#partition(poolKeys.partition(orgId), emit);
    await this.#partition(heldKeys.partition(orgId), emit);
  }

  /**
   * The defining items, erased last: its channels; its credentials with everything in their client partitions (the
   * attempt counters), and then the pointers its partition keeps to them; itself (its status copy goes after it).
   */
  async definingItems(orgId: string): Promise<{
    credentials: OrgItem[];
    credentialPointers: OrgItem[];
    channels: OrgItem[];
    org: OrgItem[];
  }> {
    const credentials: OrgItem[] = [];
    const credentialPointers: OrgItem[] = [];
    for (const clientId of await this.#credentialIds(orgId)) {
      await this.#partition(keys.clientPartition(clientId), async (items) => {
        for (const item of items) {
          if (item.SK === 'CLIENT' && item.orgId !== orgId) continue;
          credentials.push({
            key: keyOf(item),
            kind: item.SK === 'CLIENT' ? 'credentials' : 'loginAttempts',
            id: clientId,
          });
        }
      });
      credentialPointers.push({ key: keys.credentialOfOrg(orgId, clientId), kind: 'credentialPointers', id: clientId });
    }
    const channels = (await this.listChannels(orgId)).map((channel) => ({
      key: keys.channel(orgId, channel.channelId),
      kind: 'channels',
      id: channel.channelId,
      secretId: channel.accessTokenSecretId,
    }));
    const org = (await this.#get<Organisation>(keys.org(orgId)))
      ? [{ key: keys.org(orgId), kind: 'organisation' }]
      : [];
    return { credentials, credentialPointers, channels, org };
  }

  /** Every item of a partition (or those whose sort key starts with `prefix`), a page at a time. */
  #partition(partition: string, onPage: (items: Item[]) => Promise<void>, prefix?: string): Promise<void> {
    return this.#query(
      prefix === undefined
        ? { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': partition } }
        : {
            KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
            ExpressionAttributeValues: { ':pk': partition, ':prefix': prefix },
          },
      onPage,
    );
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
  if (PK !== keys.org(orgId).PK) return false;
  return SK === 'ORG' || SK.startsWith('CHANNEL#') || SK.startsWith(keys.credentialOfOrgPrefix);
}

const keyOf = (item: Item) => ({ PK: item.PK, SK: item.SK });

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
    if (SK.startsWith(scheduleKeys.schedulePrefix)) return 'reportSchedules';
    return 'other';
  }
  if (PK === `${org}#CHAT`) return item.chatType === 'GROUP' ? 'groups' : 'chats';
  if (PK.startsWith(`${org}#CHAT#`)) {
    if (SK.startsWith('MSG#')) return 'messages';
    if (SK.startsWith('RCPT#')) return 'receipts';
    return 'joinRequests';
  }
  if (PK.startsWith(`${org}#WHK#`)) return 'deliveries';
  if (PK.startsWith(`${org}#OUTBOX#`)) return 'events';
  // The event feed (CONTRACT §20): its events; its head and its markers of event ids.
  if (PK === feedKeys.partition(orgId)) return SK.startsWith(feedKeys.eventPrefix) ? 'feedEvents' : 'feedIndex';
  // Its places in the shared worker pools (shared/queue/org-share.ts).
  if (PK === poolKeys.partition(orgId)) return 'other';
  // Meta's notifications held until what they name is linked (were under the global links before).
  if (PK === heldKeys.partition(orgId)) return 'networkLinks';
  if (PK.startsWith(`${org}#`)) return 'records';
  if (PK === consoleKeys.partition(orgId))
    return SK.startsWith(consoleKeys.sessionPrefix) ? 'consoleSessions' : 'consoleLinks';
  if (PK.startsWith('IDEM#')) return 'idempotencyKeys';
  if (PK.startsWith('RATE#')) return 'rateWindows';
  if (PK.startsWith('WA')) return 'networkLinks';
  return 'other';
}
