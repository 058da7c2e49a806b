import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { GroupRequest, GroupRequestStatus } from '#shared/domain/groups/group-request';
import { OPEN_STATUSES } from '#shared/domain/groups/group-request';
import { epochSeconds } from '#shared/ports/clock';
import type { GroupRequestStore, NetworkRequestLink } from '#shared/ports/group-request-store';
import { isConditionalCheckFailed } from './client.ts';
import { groupKeys, withoutKeys } from './keys.ts';

const HELD_CONFIRMATION_TTL_SECONDS = 7 * 24 * 3600;

export class DynamoGroupRequestStore implements GroupRequestStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(request: GroupRequest): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...groupKeys.request(request.orgId, request.requestId),
          ...groupKeys.open(request.createdAt, request.orgId, request.requestId),
          entity: 'GROUP_REQUEST',
          ...request,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  }

  async get(orgId: string, requestId: string): Promise<GroupRequest | undefined> {
    const result = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: groupKeys.request(orgId, requestId), ConsistentRead: true }),
    );
    return result.Item ? withoutKeys<GroupRequest>(result.Item) : undefined;
  }

  async transition(
    orgId: string,
    requestId: string,
    from: GroupRequestStatus[],
    to: GroupRequestStatus,
    changes: Parameters<GroupRequestStore['transition']>[4],
  ): Promise<GroupRequest | undefined> {
    const final = !OPEN_STATUSES.includes(to);
    const values: Record<string, unknown> = { ':to': to, ':now': changes.now };
    const names: Record<string, string> = { '#status': 'status' };
    const sets = ['#status = :to', 'updatedAt = :now'];
    for (const field of ['chatId', 'inviteLink', 'error', 'submittedAt'] as const) {
      if (changes[field] === undefined) continue;
      sets.push(`#${field} = :${field}`);
      names[`#${field}`] = field;
      values[`:${field}`] = changes[field];
    }
    if (final) {
      const index = groupKeys.unpublished(changes.now, orgId, requestId);
      sets.push('GSI1PK = :gsi1pk', 'GSI1SK = :gsi1sk');
      values[':gsi1pk'] = index.GSI1PK;
      values[':gsi1sk'] = index.GSI1SK;
    }
    const fromNames = from.map((_, index) => `:from${index}`);
    from.forEach((status, index) => {
      values[`:from${index}`] = status;
    });
    try {
      const result = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: groupKeys.request(orgId, requestId),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: `attribute_exists(PK) AND #status IN (${fromNames.join(', ')})`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return withoutKeys<GroupRequest>(result.Attributes ?? {});
    } catch (error) {
      if (isConditionalCheckFailed(error)) return undefined;
      throw error;
    }
  }

  async markSubmission(
    orgId: string,
    requestId: string,
    expected: string | undefined,
    next: string | undefined,
    now: string,
  ): Promise<boolean> {
    const condition = expected === undefined ? 'attribute_not_exists(submittedAt)' : 'submittedAt = :expected';
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: groupKeys.request(orgId, requestId),
          UpdateExpression:
            next === undefined
              ? 'REMOVE submittedAt SET updatedAt = :now'
              : 'SET submittedAt = :next, updatedAt = :now',
          ConditionExpression: `#status = :creating AND ${condition}`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':creating': 'creating',
            ':now': now,
            ...(expected === undefined ? {} : { ':expected': expected }),
            ...(next === undefined ? {} : { ':next': next }),
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }

  async setNetworkRequestId(orgId: string, requestId: string, networkRequestId: string, now: string): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: groupKeys.request(orgId, requestId),
          UpdateExpression: 'SET networkRequestId = :id, updatedAt = :now',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':id': networkRequestId, ':now': now },
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
  }

  async markPublished(orgId: string, requestId: string, now: string): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: groupKeys.request(orgId, requestId),
        UpdateExpression: 'SET publishedAt = :now REMOVE GSI1PK, GSI1SK',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':now': now },
      }),
    );
  }

  listOpen(limit: number): Promise<GroupRequest[]> {
    return this.#index('GRQ#OPEN', limit);
  }

  listUnpublished(limit: number): Promise<GroupRequest[]> {
    return this.#index('GRQ#UNPUBLISHED', limit);
  }

  async linkNetworkRequest(link: NetworkRequestLink): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...groupKeys.networkRequest(link.networkRequestId), entity: 'WAREQ', ...link },
      }),
    );
  }

  async findNetworkRequest(networkRequestId: string): Promise<NetworkRequestLink | undefined> {
    const result = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: groupKeys.networkRequest(networkRequestId),
        ConsistentRead: true,
      }),
    );
    return result.Item ? withoutKeys<NetworkRequestLink>(result.Item) : undefined;
  }

  async holdConfirmation(networkRequestId: string, notification: unknown, now: Date): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...groupKeys.heldConfirmation(networkRequestId),
          entity: 'WACONFIRMATION',
          notification,
          receivedAt: now.toISOString(),
          ttl: epochSeconds(now) + HELD_CONFIRMATION_TTL_SECONDS,
        },
      }),
    );
  }

  async heldConfirmation(networkRequestId: string): Promise<unknown | undefined> {
    const result = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: groupKeys.heldConfirmation(networkRequestId),
        ConsistentRead: true,
      }),
    );
    return result.Item?.notification;
  }

  async #index(partition: string, limit: number): Promise<GroupRequest[]> {
    const result = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk',
        ExpressionAttributeValues: { ':pk': partition },
        Limit: limit,
      }),
    );
    return (result.Items ?? []).map((item) => withoutKeys<GroupRequest>(item));
  }
}
