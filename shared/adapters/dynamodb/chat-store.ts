import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { asService } from '#shared/adapters/aws/tenant-scope';
import type { Chat, GroupStatus, JoinRequest, Message, MessageStatus, Receipt } from '#shared/domain/chats/chat';
import type { ChatStore, ExternalChatLink, MessageLink } from '#shared/ports/chat-store';
import { epochSeconds } from '#shared/ports/clock';
import type { PageRequest } from '#shared/ports/identity-store';
import { applied, isConditionalCheckFailed } from './client.ts';
import { chatKeys, heldKeys, withoutKeys } from './keys.ts';
import { queryPage } from './paging.ts';

/** Meta retries a notification for up to 7 days; a status held longer has no message coming. */
const HELD_STATUS_TTL_SECONDS = 7 * 24 * 3600;

const MAX_VERSION_CONFLICTS = 5;

const groupIndex = (chat: Chat) =>
  chat.chatType === 'GROUP' ? chatKeys.groupIndex(chat.orgId, chat.createdAt, chat.chatId) : {};

export class DynamoChatStore implements ChatStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async createChat(chat: Chat): Promise<boolean> {
    return this.#putNew({
      ...chatKeys.chat(chat.orgId, chat.chatId),
      ...chatKeys.chatTimeIndex(chat.orgId, chat.updatedAt, chat.chatId),
      ...groupIndex(chat),
      entity: 'CHAT',
      recordType: 'CHAT',
      version: 1,
      ...chat,
    });
  }

  async getChat(orgId: string, chatId: string): Promise<Chat | undefined> {
    const item = await this.#get(chatKeys.chat(orgId, chatId));
    return item ? this.#toChat(item) : undefined;
  }

  async updateChat(
    orgId: string,
    chatId: string,
    change: (chat: Chat) => Partial<Chat> | undefined,
  ): Promise<Chat | undefined> {
    for (let attempt = 0; attempt < MAX_VERSION_CONFLICTS; attempt++) {
      const item = await this.#get(chatKeys.chat(orgId, chatId));
      if (!item) return undefined;
      const chat = this.#toChat(item);
      const changes = change(chat);
      if (!changes) return chat;
      const next: Chat = { ...chat, ...changes };
      const version = Number(item.version ?? 0);
      try {
        await this.db.send(
          new PutCommand({
            TableName: this.tableName,
            Item: {
              ...chatKeys.chat(orgId, chatId),
              ...chatKeys.chatTimeIndex(orgId, next.updatedAt, chatId),
              ...groupIndex(next),
              entity: 'CHAT',
              recordType: 'CHAT',
              version: version + 1,
              ...next,
            },
            ConditionExpression: item.version === undefined ? 'attribute_not_exists(version)' : 'version = :version',
            ...(item.version === undefined ? {} : { ExpressionAttributeValues: { ':version': version } }),
          }),
        );
        return next;
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
      }
    }
    throw new Error(`chat ${chatId} kept changing; giving up after ${MAX_VERSION_CONFLICTS} attempts`);
  }

  async touchChat(orgId: string, chatId: string, at: string, lastMessageFrom?: Chat['lastMessageFrom']): Promise<void> {
    const from = lastMessageFrom === undefined ? {} : { lastMessageFrom };
    // Each write bumps `version`, so an updateChat reading before it retries instead of overwriting it.
    const update = async (fields: Record<string, unknown>, condition: string) => {
      const names = Object.keys(fields);
      if (names.length === 0) return;
      try {
        await this.db.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: chatKeys.chat(orgId, chatId),
            UpdateExpression: `SET ${names.map((_, i) => `#f${i} = :f${i}`).join(', ')}, #version = if_not_exists(#version, :zero) + :one`,
            ConditionExpression: condition,
            ExpressionAttributeNames: {
              ...Object.fromEntries(names.map((name, i) => [`#f${i}`, name])),
              '#version': 'version',
              '#updatedAt': 'updatedAt',
            },
            ExpressionAttributeValues: {
              ...Object.fromEntries(names.map((name, i) => [`:f${i}`, fields[name]])),
              ':zero': 0,
              ':one': 1,
              ':at': at,
            },
          }),
        );
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
        return false;
      }
      return true;
    };
    const moved = await update(
      { updatedAt: at, ...chatKeys.chatTimeIndex(orgId, at, chatId), ...from },
      'attribute_exists(PK) AND #updatedAt <= :at',
    );
    // A later change already moved updatedAt: keep it, and still record who wrote last.
    if (moved === false) await update(from, 'attribute_exists(PK) AND #updatedAt > :at');
  }

  listGroups(orgId: string, filter: { channelId?: string; groupStatus?: GroupStatus }, page: PageRequest) {
    const GSI1PK = chatKeys.groupIndexPartition(orgId);
    // Only the organisation's own chats: IAM checks the partition key an item is written under, never the index keys
    // it carries (CONTRACT §25).
    const conditions: string[] = ['PK = :chats'];
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':pk': GSI1PK, ':chats': chatKeys.chat(orgId, '').PK };
    if (filter.channelId) {
      conditions.push('channelId = :channelId');
      values[':channelId'] = filter.channelId;
    }
    if (filter.groupStatus) {
      names['#groupStatus'] = 'groupStatus';
      values[':groupStatus'] = filter.groupStatus;
      // Groups stored before the lifecycle existed have no status and are active.
      conditions.push(
        filter.groupStatus === 'active'
          ? '(attribute_not_exists(#groupStatus) OR #groupStatus = :groupStatus)'
          : '#groupStatus = :groupStatus',
      );
    }
    return queryPage(
      this.db,
      {
        TableName: this.tableName,
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk',
        FilterExpression: conditions.join(' AND '),
        ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
        ExpressionAttributeValues: values,
        ScanIndexForward: false,
      },
      page,
      { GSI1PK },
      (item) => this.#toChat(withoutKeys(item)),
    );
  }

  async linkExternalChat(externalChatId: string, link: ExternalChatLink): Promise<boolean> {
    return this.#putLink({ ...chatKeys.externalChat(externalChatId), entity: 'WAGROUP', ...link }, link);
  }

  /** A link is written once; writing the same link again (a retry) is allowed, re-pointing it never is. */
  async #putLink(item: Record<string, unknown>, link: { orgId: string; chatId: string; messageId?: string }) {
    const same = ['orgId', 'chatId', ...(link.messageId ? ['messageId'] : [])];
    // Meta's ids → the organisation's chat or message: a global partition, with the function's own role (§25).
    return asService(() =>
      applied(
        this.db.send(
          new PutCommand({
            TableName: this.tableName,
            Item: item,
            ConditionExpression: `attribute_not_exists(PK) OR (${same.map((name) => `#${name} = :${name}`).join(' AND ')})`,
            ExpressionAttributeNames: Object.fromEntries(same.map((name) => [`#${name}`, name])),
            ExpressionAttributeValues: Object.fromEntries(
              same.map((name) => [`:${name}`, link[name as keyof typeof link]]),
            ),
          }),
        ),
      ),
    );
  }

  async findExternalChat(externalChatId: string): Promise<ExternalChatLink | undefined> {
    return asService(() => this.#get(chatKeys.externalChat(externalChatId))) as Promise<ExternalChatLink | undefined>;
  }

  async createMessage(message: Message): Promise<boolean> {
    return this.#putNew({
      ...chatKeys.message(message.orgId, message.chatId, message.messageId),
      entity: 'MESSAGE',
      ...message,
    });
  }

  async getMessage(orgId: string, chatId: string, messageId: string): Promise<Message | undefined> {
    return this.#get(chatKeys.message(orgId, chatId, messageId)) as Promise<Message | undefined>;
  }

  listMessages(orgId: string, chatId: string, page: PageRequest) {
    const PK = chatKeys.conversation(orgId, chatId);
    return queryPage(
      this.db,
      {
        TableName: this.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': PK, ':prefix': 'MSG#' },
        ScanIndexForward: true,
      },
      page,
      { PK },
      (item) => withoutKeys<Message>(item),
    );
  }

  async updateMessage(
    orgId: string,
    chatId: string,
    messageId: string,
    condition: { from: MessageStatus[] } | { sendingSince: string | null },
    changes: Partial<Pick<Message, 'status' | 'error' | 'networkMessageId' | 'sendingSince'>> & {
      clearSending?: boolean;
    },
  ): Promise<boolean> {
    // DynamoDB refuses a name that no expression uses, so #status is only defined where it is used.
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets: string[] = [];
    for (const field of ['status', 'error', 'networkMessageId', 'sendingSince'] as const) {
      if (changes[field] === undefined) continue;
      names[`#${field}`] = field;
      values[`:${field}`] = changes[field];
      sets.push(`#${field} = :${field}`);
    }
    let conditionExpression: string;
    if ('from' in condition) {
      names['#status'] = 'status';
      conditionExpression = `#status IN (${condition.from.map((_, index) => `:from${index}`).join(', ')})`;
      condition.from.forEach((status, index) => {
        values[`:from${index}`] = status;
      });
    } else if (condition.sendingSince === null) {
      names['#status'] = 'status';
      conditionExpression = '#status = :queued AND attribute_not_exists(sendingSince)';
      values[':queued'] = 'queued';
    } else {
      conditionExpression = 'sendingSince = :expectedSending';
      values[':expectedSending'] = condition.sendingSince;
    }
    const update =
      `${sets.length ? `SET ${sets.join(', ')}` : ''}${changes.clearSending ? ' REMOVE sendingSince' : ''}`.trim();
    return applied(
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: chatKeys.message(orgId, chatId, messageId),
          UpdateExpression: update,
          ConditionExpression: `attribute_exists(PK) AND ${conditionExpression}`,
          ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
          ExpressionAttributeValues: values,
        }),
      ),
    );
  }

  async linkNetworkMessage(networkMessageId: string, link: MessageLink): Promise<boolean> {
    return this.#putLink({ ...chatKeys.networkMessage(networkMessageId), entity: 'WAMSG', ...link }, link);
  }

  async claimNetworkMessage(networkMessageId: string, link: MessageLink): Promise<MessageLink> {
    const item = { ...chatKeys.networkMessage(networkMessageId), entity: 'WAMSG', ...link };
    if (await asService(() => this.#putNew(item))) return link;
    return (await this.findNetworkMessage(networkMessageId)) ?? link;
  }

  async holdStatus(
    orgId: string,
    networkMessageId: string,
    status: string,
    notification: unknown,
    now: Date,
  ): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...heldKeys.status(orgId, networkMessageId, status),
          entity: 'WASTATUS',
          notification,
          receivedAt: now.toISOString(),
          ttl: epochSeconds(now) + HELD_STATUS_TTL_SECONDS,
        },
      }),
    );
  }

  /**
   * The statuses held in the organisation's partition for the wamid; until the last one held under the wamid's global
   * key expired (TTL, 7 days after the change), those too (the caller applies only those its number reported).
   */
  async heldStatuses(orgId: string, networkMessageId: string): Promise<unknown[]> {
    const query = async (PK: string, prefix: string) =>
      (
        await this.db.send(
          new QueryCommand({
            TableName: this.tableName,
            KeyConditionExpression: 'PK = :pk AND begins_with(SK, :held)',
            ExpressionAttributeValues: { ':pk': PK, ':held': prefix },
            ConsistentRead: true,
          }),
        )
      ).Items ?? [];
    const [held, legacy] = await Promise.all([
      query(heldKeys.partition(orgId), heldKeys.statusPrefix(networkMessageId)),
      asService(() => query(chatKeys.networkMessage(networkMessageId).PK, chatKeys.legacyHeldStatusPrefix)),
    ]);
    const live = legacy.filter((item) => typeof item.ttl !== 'number' || item.ttl * 1000 > Date.now());
    return [...held, ...live].map((item) => item.notification);
  }

  async findNetworkMessage(networkMessageId: string): Promise<MessageLink | undefined> {
    return asService(() => this.#get(chatKeys.networkMessage(networkMessageId))) as Promise<MessageLink | undefined>;
  }

  async putReceipt(orgId: string, chatId: string, messageId: string, receipt: Receipt): Promise<boolean> {
    const member = receipt.phoneNumber ? `phone:${receipt.phoneNumber}` : `user:${receipt.userId}`;
    return applied(
      this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...chatKeys.receipt(orgId, chatId, messageId, member, receipt.status),
            entity: 'RECEIPT',
            messageId,
            ...receipt,
          },
          // Each status once per member, at the earliest time Meta gave it. A receipt kept before delivered and read
          // were kept apart may hold `read` where `delivered` now goes: it stays.
          ConditionExpression: 'attribute_not_exists(PK) OR (#status = :status AND #at > :at)',
          ExpressionAttributeNames: { '#status': 'status', '#at': 'at' },
          ExpressionAttributeValues: { ':status': receipt.status, ':at': receipt.at },
        }),
      ),
    );
  }

  listReceipts(orgId: string, chatId: string, messageId: string, page: PageRequest) {
    const PK = chatKeys.conversation(orgId, chatId);
    return queryPage(
      this.db,
      {
        TableName: this.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': PK, ':prefix': chatKeys.receiptPrefix(messageId) },
      },
      page,
      { PK },
      (item) => {
        const { phoneNumber, userId, status, at } = withoutKeys<Receipt>(item);
        return { phoneNumber: phoneNumber ?? null, userId: userId ?? null, status, at };
      },
    );
  }

  async putJoinRequest(orgId: string, chatId: string, joinRequest: JoinRequest): Promise<boolean> {
    return applied(
      this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...chatKeys.joinRequest(orgId, chatId, joinRequest.joinRequestId),
            entity: 'JOINREQ',
            ...joinRequest,
          },
          ConditionExpression: 'attribute_not_exists(PK) OR createdAt = :createdAt',
          ExpressionAttributeValues: { ':createdAt': joinRequest.createdAt },
        }),
      ),
    );
  }

  async deleteJoinRequest(orgId: string, chatId: string, joinRequestId: string): Promise<boolean> {
    const result = await this.db.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: chatKeys.joinRequest(orgId, chatId, joinRequestId),
        ReturnValues: 'ALL_OLD',
      }),
    );
    return result.Attributes !== undefined;
  }

  listJoinRequests(orgId: string, chatId: string, page: PageRequest) {
    const PK = chatKeys.conversation(orgId, chatId);
    return queryPage(
      this.db,
      {
        TableName: this.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': PK, ':prefix': 'JOINREQ#' },
      },
      page,
      { PK },
      (item) => withoutKeys<JoinRequest>(item),
    );
  }

  #toChat(item: Record<string, unknown>): Chat {
    const { version, recordType, ...rest } = withoutKeys<Record<string, unknown>>(item);
    return rest as unknown as Chat;
  }

  async #get(key: Record<string, string>): Promise<Record<string, unknown> | undefined> {
    const result = await this.db.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
    return result.Item ? withoutKeys<Record<string, unknown>>(result.Item) : undefined;
  }

  async #putNew(item: Record<string, unknown>): Promise<boolean> {
    return applied(
      this.db.send(
        new PutCommand({ TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' }),
      ),
    );
  }
}
