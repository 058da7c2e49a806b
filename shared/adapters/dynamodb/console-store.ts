import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ConsoleLink, ConsoleSession, ConsoleStore, LinkUse } from '#shared/domain/console/model';
import { isConditionalCheckFailed } from './client.ts';
import { consoleKeys, withoutKeys } from './keys.ts';

/** Kept a day past their end, so that a late click still hears "used" or "expired"; TTL removes them later. */
const KEEP_SECONDS = 24 * 60 * 60;
const ttlAfter = (iso: string) => Math.floor(Date.parse(iso) / 1000) + KEEP_SECONDS;

/** Console links and sessions (CONTRACT §24), in their organisation's console partition (keys.ts consoleKeys). */
export class DynamoConsoleStore implements ConsoleStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async putLink(link: ConsoleLink): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...consoleKeys.link(link.orgId, link.codeHash), ...link, ttl: ttlAfter(link.expiresAt) },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  }

  /** One conditional write spends the code: of two exchanges at once, exactly one sees `spent`. */
  async useLink(orgId: string, codeHash: string, now: Date): Promise<LinkUse> {
    const at = now.toISOString();
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: consoleKeys.link(orgId, codeHash),
          UpdateExpression: 'SET usedAt = :at',
          ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(usedAt) AND expiresAt > :at',
          ExpressionAttributeValues: { ':at': at },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { spent: true, link: withoutKeys<ConsoleLink>(Attributes ?? {}) };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: consoleKeys.link(orgId, codeHash), ConsistentRead: true }),
    );
    if (!Item) return { spent: false, reason: 'unknown' };
    return { spent: false, reason: Item.usedAt ? 'used' : 'expired' };
  }

  async putSession(session: ConsoleSession): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...consoleKeys.session(session.orgId, session.sessionId),
          ...session,
          ttl: ttlAfter(session.expiresAt),
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  }

  async getSession(orgId: string, sessionId: string): Promise<ConsoleSession | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: consoleKeys.session(orgId, sessionId), ConsistentRead: true }),
    );
    return Item ? withoutKeys<ConsoleSession>(Item) : undefined;
  }

  async endSession(orgId: string, sessionId: string, at: Date): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: consoleKeys.session(orgId, sessionId),
          UpdateExpression: 'SET endedAt = if_not_exists(endedAt, :at)',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':at': at.toISOString() },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }
}
