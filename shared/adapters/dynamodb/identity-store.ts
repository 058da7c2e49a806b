import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Channel, ClientCredential, Organisation } from '#shared/domain/orgs/model';
import { epochSeconds } from '#shared/ports/clock';
import type {
  ChannelStore,
  CredentialStore,
  LoginAttemptStore,
  OrgStore,
  Page,
  PageRequest,
} from '#shared/ports/identity-store';
import { isConditionalCheckFailed } from './client.ts';
import { keys, withoutKeys } from './keys.ts';
import { queryPage } from './paging.ts';

export class DynamoIdentityStore implements OrgStore, CredentialStore, ChannelStore, LoginAttemptStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async createOrg(org: Organisation): Promise<void> {
    await this.#putNew({ ...keys.org(org.orgId), entity: 'ORG', ...org });
  }

  async getOrg(orgId: string): Promise<Organisation | undefined> {
    return this.#get<Organisation>(keys.org(orgId));
  }

  async createCredential(credential: ClientCredential): Promise<void> {
    await this.#putNew({ ...keys.credential(credential.clientId), entity: 'CLIENT', ...credential });
  }

  async getCredential(clientId: string): Promise<ClientCredential | undefined> {
    return this.#get<ClientCredential>(keys.credential(clientId));
  }

  async createChannel(channel: Channel): Promise<void> {
    const byPhone = channel.phoneNumberId ? keys.channelByPhoneNumberId(channel.phoneNumberId, channel.channelId) : {};
    await this.#putNew({
      ...keys.channel(channel.orgId, channel.channelId),
      ...byPhone,
      entity: 'CHANNEL',
      ...channel,
    });
  }

  async getChannel(orgId: string, channelId: string): Promise<Channel | undefined> {
    return this.#get<Channel>(keys.channel(orgId, channelId));
  }

  async findChannelByPhoneNumberId(phoneNumberId: string): Promise<Channel | undefined> {
    const result = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk',
        ExpressionAttributeValues: { ':pk': keys.channelByPhoneNumberIdPartition(phoneNumberId) },
        Limit: 1,
      }),
    );
    const [item] = result.Items ?? [];
    return item ? withoutKeys<Channel>(item) : undefined;
  }

  async listChannels(orgId: string, page: PageRequest): Promise<Page<Channel>> {
    const { PK, SKPrefix } = keys.channelPrefix(orgId);
    return queryPage(
      this.db,
      {
        TableName: this.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': PK, ':prefix': SKPrefix },
      },
      page,
      { PK },
      (item) => withoutKeys<Channel>(item),
    );
  }

  async failures(clientId: string, now: Date, windowSeconds: number) {
    const item = await this.#get<{ failures: number; windowStartedAt: number }>(keys.loginFailures(clientId));
    if (!item || item.windowStartedAt <= epochSeconds(now) - windowSeconds) {
      return { count: 0, windowStartedAt: now };
    }
    return { count: item.failures, windowStartedAt: new Date(item.windowStartedAt * 1000) };
  }

  /** Counts a failure in the open window, or opens a new one; each branch is one conditional write. */
  async recordFailure(clientId: string, now: Date, windowSeconds: number): Promise<void> {
    const key = keys.loginFailures(clientId);
    const cutoff = epochSeconds(now) - windowSeconds;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await this.db.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: key,
            UpdateExpression: 'ADD failures :one',
            ConditionExpression: 'windowStartedAt > :cutoff',
            ExpressionAttributeValues: { ':one': 1, ':cutoff': cutoff },
          }),
        );
        return;
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
      }
      try {
        await this.db.send(
          new PutCommand({
            TableName: this.tableName,
            Item: {
              ...key,
              failures: 1,
              windowStartedAt: epochSeconds(now),
              ttl: epochSeconds(now) + windowSeconds * 2,
            },
            ConditionExpression: 'attribute_not_exists(PK) OR windowStartedAt <= :cutoff',
            ExpressionAttributeValues: { ':cutoff': cutoff },
          }),
        );
        return;
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
      }
    }
  }

  async clear(clientId: string): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.tableName, Key: keys.loginFailures(clientId) }));
  }

  async #get<T>(key: Record<string, string>): Promise<T | undefined> {
    const result = await this.db.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
    return result.Item ? withoutKeys<T>(result.Item) : undefined;
  }

  async #putNew(item: Record<string, unknown>): Promise<void> {
    await this.db.send(
      new PutCommand({ TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' }),
    );
  }
}
