import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { asService } from '#shared/adapters/aws/tenant-scope';
import type { GroupRequest, GroupRequestStatus, RequestHold } from '#shared/domain/groups/group-request';
import { OPEN_STATUSES } from '#shared/domain/groups/group-request';
import { epochSeconds } from '#shared/ports/clock';
import type { GroupRequestStore, NetworkRequestLink } from '#shared/ports/group-request-store';
import { applied } from './client.ts';
import { groupKeys, heldKeys, withoutKeys } from './keys.ts';
import { markItemPublished, sparseIndexItems, transitionItem } from './lifecycle.ts';

const HELD_CONFIRMATION_TTL_SECONDS = 7 * 24 * 3600;

export class DynamoGroupRequestStore implements GroupRequestStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(request: GroupRequest): Promise<boolean> {
    return applied(
      this.db.send(
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
      ),
    );
  }

  async get(orgId: string, requestId: string): Promise<GroupRequest | undefined> {
    const result = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: groupKeys.request(orgId, requestId), ConsistentRead: true }),
    );
    return result.Item ? withoutKeys<GroupRequest>(result.Item) : undefined;
  }

  transition(
    orgId: string,
    requestId: string,
    from: GroupRequestStatus[],
    to: GroupRequestStatus,
    changes: Parameters<GroupRequestStore['transition']>[4],
  ): Promise<GroupRequest | undefined> {
    const { now, ...fields } = changes;
    return transitionItem<GroupRequest>(this.db, this.tableName, groupKeys.request(orgId, requestId), {
      from,
      to,
      fields: { ...fields, updatedAt: now },
      index: OPEN_STATUSES.includes(to) ? undefined : groupKeys.unpublished(now, orgId, requestId),
    });
  }

  async markSubmission(
    orgId: string,
    requestId: string,
    expected: string | undefined,
    next: string | undefined,
    now: string,
  ): Promise<boolean> {
    const condition = expected === undefined ? 'attribute_not_exists(submittedAt)' : 'submittedAt = :expected';
    return applied(
      this.db.send(
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
      ),
    );
  }

  async putOnHold(orgId: string, requestId: string, expected: string, hold: RequestHold): Promise<boolean> {
    return applied(
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: groupKeys.request(orgId, requestId),
          UpdateExpression: 'REMOVE submittedAt SET onHold = :hold, updatedAt = :now',
          ConditionExpression: '#status = :creating AND submittedAt = :expected',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':creating': 'creating',
            ':expected': expected,
            ':hold': hold,
            ':now': hold.since,
          },
        }),
      ),
    );
  }

  async setNetworkRequestId(orgId: string, requestId: string, networkRequestId: string, now: string): Promise<void> {
    await applied(
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: groupKeys.request(orgId, requestId),
          UpdateExpression: 'SET networkRequestId = :id, updatedAt = :now REMOVE onHold',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':id': networkRequestId, ':now': now },
        }),
      ),
    );
  }

  markPublished(orgId: string, requestId: string, now: string): Promise<void> {
    return markItemPublished(this.db, this.tableName, groupKeys.request(orgId, requestId), now);
  }

  listOpen(limit: number): Promise<GroupRequest[]> {
    return sparseIndexItems(this.db, this.tableName, groupKeys.openPartition, limit);
  }

  listUnpublished(limit: number): Promise<GroupRequest[]> {
    return sparseIndexItems(this.db, this.tableName, groupKeys.unpublishedPartition, limit);
  }

  /** Meta's request id → the organisation's request: a global partition, with the function's own role (§25). */
  async linkNetworkRequest(link: NetworkRequestLink): Promise<void> {
    await asService(() =>
      this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...groupKeys.networkRequest(link.networkRequestId), entity: 'WAREQ', ...link },
        }),
      ),
    );
  }

  async findNetworkRequest(networkRequestId: string): Promise<NetworkRequestLink | undefined> {
    const result = await asService(() =>
      this.db.send(
        new GetCommand({
          TableName: this.tableName,
          Key: groupKeys.networkRequest(networkRequestId),
          ConsistentRead: true,
        }),
      ),
    );
    return result.Item ? withoutKeys<NetworkRequestLink>(result.Item) : undefined;
  }

  async holdConfirmation(orgId: string, networkRequestId: string, notification: unknown, now: Date): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...heldKeys.confirmation(orgId, networkRequestId),
          entity: 'WACONFIRMATION',
          notification,
          receivedAt: now.toISOString(),
          ttl: epochSeconds(now) + HELD_CONFIRMATION_TTL_SECONDS,
        },
      }),
    );
  }

  /**
   * The confirmation held in the organisation's partition; until the last one held under the request's global key
   * expired (TTL, 7 days after the change), that one too, when it was held for the same organisation's number.
   */
  async heldConfirmation(orgId: string, networkRequestId: string): Promise<unknown | undefined> {
    const read = async (Key: Record<string, string>) =>
      (await this.db.send(new GetCommand({ TableName: this.tableName, Key, ConsistentRead: true }))).Item;
    const held = await read(heldKeys.confirmation(orgId, networkRequestId));
    if (held) return held.notification;
    const legacy = await asService(() => read(groupKeys.legacyHeldConfirmation(networkRequestId)));
    if (!legacy || (typeof legacy.ttl === 'number' && legacy.ttl * 1000 <= Date.now())) return undefined;
    const link = await this.findNetworkRequest(networkRequestId);
    return link?.orgId === orgId ? legacy.notification : undefined;
  }
}
