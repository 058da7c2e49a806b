import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Channel, ClientCredential, Organisation } from '#shared/domain/orgs/model';
import { epochSeconds } from '#shared/ports/clock';
import type {
  AttemptClaim,
  AttemptCounter,
  ChannelStore,
  CredentialStore,
  LoginAttemptStore,
  OrgStore,
  Page,
  PageRequest,
} from '#shared/ports/identity-store';
import { applied, isConditionalCheckFailed } from './client.ts';
import { keys, organisationOfPartition, withoutKeys } from './keys.ts';
import { dueListItems, indexKeys } from './lifecycle.ts';
import { queryPage } from './paging.ts';

export class DynamoIdentityStore implements OrgStore, CredentialStore, ChannelStore, LoginAttemptStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * The organisation, then its status copy (what token checks and workers read, CONTRACT §17). Interrupted in
   * between, it is one without a copy, as those created before copies existed: its own item is read instead.
   */
  async createOrg(org: Organisation): Promise<void> {
    await this.#putNew({ ...keys.org(org.orgId), entity: 'ORG', ...org });
    await applied(
      this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...keys.orgStatus(org.orgId), status: org.status ?? 'active', statusChangedAt: org.createdAt },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      ),
    );
  }

  async getOrg(orgId: string): Promise<Organisation | undefined> {
    return this.#get<Organisation>(keys.org(orgId));
  }

  /**
   * The organisation's pointer first (idempotent), then the credential: a credential is never without the pointer
   * its organisation finds it by (listing, erasure); a pointer without its credential is skipped and erased.
   */
  async createCredential(credential: ClientCredential): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys.credentialOfOrg(credential.orgId, credential.clientId),
          entity: 'CREDENTIAL_POINTER',
          clientId: credential.clientId,
          createdAt: credential.createdAt,
        },
      }),
    );
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

  async findOrgByPhoneNumberId(phoneNumberId: string): Promise<string | undefined> {
    // The index entry is the channel item's own: its PK names the organisation (CONTRACT §25: ids only).
    const { Items = [] } = await indexKeys(this.db, this.tableName, {
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': keys.channelByPhoneNumberIdPartition(phoneNumberId) },
      Limit: 1,
    });
    return organisationOfPartition(Items[0]?.PK);
  }

  /**
   * Meta names the number only: a global index partition, whose keys the function's own role reads; the channel is
   * then read with its organisation's credentials (CONTRACT §25).
   */
  async findChannelByPhoneNumberId(phoneNumberId: string): Promise<Channel | undefined> {
    const { items } = await dueListItems(this.db, this.tableName, {
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': keys.channelByPhoneNumberIdPartition(phoneNumberId) },
      Limit: 1,
    });
    const [item] = items;
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

  /**
   * Admits one attempt: an ADD conditioned on the open window holding fewer than `limit`, else a new window over an
   * expired (or missing) one. When both conditions fail the window is full, unless it changed meanwhile: read it and
   * try again a few times, then refuse (never admit without a counted write).
   */
  async claimAttempt(counter: AttemptCounter, now: Date, windowSeconds: number, limit: number): Promise<AttemptClaim> {
    const key = keys.loginAttempts(counter);
    const nowSeconds = epochSeconds(now);
    const cutoff = nowSeconds - windowSeconds;
    for (let round = 0; round < 3; round++) {
      try {
        const result = await this.db.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: key,
            UpdateExpression: 'ADD attempts :one',
            ConditionExpression: 'windowStartedAt > :cutoff AND attempts < :limit',
            ExpressionAttributeValues: { ':one': 1, ':cutoff': cutoff, ':limit': limit },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return { allowed: true, windowStartedAt: Number(result.Attributes?.windowStartedAt) };
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
      }
      try {
        await this.db.send(
          new PutCommand({
            TableName: this.tableName,
            Item: { ...key, attempts: 1, windowStartedAt: nowSeconds, ttl: nowSeconds + windowSeconds * 2 },
            ConditionExpression: 'attribute_not_exists(PK) OR windowStartedAt <= :cutoff',
            ExpressionAttributeValues: { ':cutoff': cutoff },
          }),
        );
        return { allowed: true, windowStartedAt: nowSeconds };
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
      }
      const current = await this.#get<{ attempts: number; windowStartedAt: number }>(key);
      if (current && current.windowStartedAt > cutoff && current.attempts >= limit) {
        return { allowed: false, retryAfterSeconds: current.windowStartedAt + windowSeconds - nowSeconds };
      }
    }
    return { allowed: false, retryAfterSeconds: 1 };
  }

  async refundAttempt(counter: AttemptCounter, windowStartedAt: number): Promise<void> {
    await applied(
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.loginAttempts(counter),
          UpdateExpression: 'ADD attempts :minusOne',
          ConditionExpression: 'windowStartedAt = :started AND attempts > :zero',
          ExpressionAttributeValues: { ':minusOne': -1, ':started': windowStartedAt, ':zero': 0 },
        }),
      ),
    );
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
