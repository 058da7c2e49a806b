import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Delivery, Subscription } from '#shared/domain/webhooks/subscription';
import type { PageRequest } from '#shared/ports/identity-store';
import { SubscriptionContendedError, type WebhookStore } from '#shared/ports/webhook-store';
import { applied, isConditionalCheckFailed } from './client.ts';
import { webhookKeys, withoutKeys } from './keys.ts';
import { dueListItems } from './lifecycle.ts';
import { queryPage } from './paging.ts';

const MAX_VERSION_CONFLICTS = 5;

export class DynamoWebhookStore implements WebhookStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async createSubscription(subscription: Subscription, limit: number): Promise<boolean> {
    if (!(await this.#takeSlot(subscription.orgId, limit))) return false;
    try {
      await this.#putSubscription(subscription);
    } catch (error) {
      await this.#freeSlot(subscription.orgId);
      throw error;
    }
    return true;
  }

  /**
   * One conditional ADD below the limit. A missing counter (an organisation whose subscriptions predate it) starts
   * at the number of subscriptions it has.
   */
  async #takeSlot(orgId: string, limit: number): Promise<boolean> {
    const key = webhookKeys.subscriptionCount(orgId);
    for (let round = 0; round < 3; round++) {
      try {
        await this.db.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: key,
            UpdateExpression: 'ADD subscriptions :one',
            ConditionExpression: 'attribute_exists(subscriptions) AND subscriptions < :limit',
            ExpressionAttributeValues: { ':one': 1, ':limit': limit },
          }),
        );
        return true;
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
      }
      if (await this.#get(key)) return false;
      const existing = (await this.allSubscriptions(orgId)).length;
      await applied(
        this.db.send(
          new PutCommand({
            TableName: this.tableName,
            Item: { ...key, entity: 'WEBHOOK_COUNT', subscriptions: existing },
            ConditionExpression: 'attribute_not_exists(PK)',
          }),
        ),
      );
    }
    return false;
  }

  /** Frees one subscription slot; a count already at zero stays there. */
  async #freeSlot(orgId: string): Promise<void> {
    await applied(
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: webhookKeys.subscriptionCount(orgId),
          UpdateExpression: 'ADD subscriptions :minusOne',
          ConditionExpression: 'subscriptions > :zero',
          ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
        }),
      ),
    );
  }

  async #putSubscription(subscription: Subscription): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...webhookKeys.subscription(subscription.orgId, subscription.webhookId),
          entity: 'WEBHOOK',
          version: 1,
          ...subscription,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  }

  async getSubscription(orgId: string, webhookId: string): Promise<Subscription | undefined> {
    const item = await this.#get(webhookKeys.subscription(orgId, webhookId));
    return item ? this.#toSubscription(item) : undefined;
  }

  listSubscriptions(orgId: string, page: PageRequest) {
    const { PK } = webhookKeys.subscription(orgId, '');
    return queryPage(
      this.db,
      {
        TableName: this.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': PK, ':prefix': webhookKeys.subscriptionPrefix },
      },
      page,
      { PK },
      (item) => this.#toSubscription(item),
    );
  }

  async allSubscriptions(orgId: string): Promise<Subscription[]> {
    const all: Subscription[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.listSubscriptions(orgId, { limit: 100, startKey });
      all.push(...page.items);
      startKey = page.nextKey;
    } while (startKey);
    return all;
  }

  async updateSubscription(
    orgId: string,
    webhookId: string,
    change: (subscription: Subscription) => Partial<Subscription> | undefined,
  ): Promise<Subscription | undefined> {
    for (let attempt = 0; attempt < MAX_VERSION_CONFLICTS; attempt++) {
      const item = await this.#get(webhookKeys.subscription(orgId, webhookId));
      if (!item) return undefined;
      const current = this.#toSubscription(item);
      const changes = change(current);
      if (!changes) return current;
      const next = { ...current, ...changes };
      try {
        await this.db.send(
          new PutCommand({
            TableName: this.tableName,
            Item: {
              ...webhookKeys.subscription(orgId, webhookId),
              entity: 'WEBHOOK',
              version: Number(item.version) + 1,
              ...next,
            },
            ConditionExpression: 'version = :version',
            ExpressionAttributeValues: { ':version': item.version },
          }),
        );
        return next;
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
      }
    }
    throw new SubscriptionContendedError(webhookId);
  }

  /**
   * The marker first (keys.deletedSubscription: the erasure finds the deliveries by it, so a crash never leaves them
   * out of its reach), then the subscription; a marker for a subscription that did not exist names an empty partition.
   */
  async deleteSubscription(orgId: string, webhookId: string): Promise<boolean> {
    if (!(await this.getSubscription(orgId, webhookId))) return false;
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...webhookKeys.deletedSubscription(orgId, webhookId), entity: 'SUBSCRIPTION_DELETED', webhookId },
      }),
    );
    const deleted = await applied(
      this.db.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: webhookKeys.subscription(orgId, webhookId),
          ConditionExpression: 'attribute_exists(PK)',
        }),
      ),
    );
    if (deleted) await this.#freeSlot(orgId);
    return deleted;
  }

  /** Claims (subscription, event) for a delivery id first, then stores the delivery: a crash between is repaired by a retry. */
  async createDelivery(delivery: Delivery): Promise<{ delivery: Delivery; created: boolean }> {
    const claimKey = webhookKeys.eventDelivery(delivery.orgId, delivery.webhookId, delivery.eventId);
    let deliveryId = delivery.deliveryId;
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...claimKey, entity: 'WEBHOOK_EVENT', deliveryId },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      deliveryId = String((await this.#get(claimKey))?.deliveryId ?? deliveryId);
    }
    const stored = { ...delivery, deliveryId };
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...webhookKeys.delivery(stored.orgId, stored.webhookId, deliveryId), entity: 'DELIVERY', ...stored },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
      return { delivery: stored, created: true };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      return { delivery: (await this.getDelivery(stored.orgId, stored.webhookId, deliveryId))!, created: false };
    }
  }

  async getDelivery(orgId: string, webhookId: string, deliveryId: string): Promise<Delivery | undefined> {
    return this.#get(webhookKeys.delivery(orgId, webhookId, deliveryId)) as Promise<Delivery | undefined>;
  }

  listDeliveries(orgId: string, webhookId: string, page: PageRequest) {
    const PK = webhookKeys.deliveries(orgId, webhookId);
    return queryPage(
      this.db,
      {
        TableName: this.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': PK, ':prefix': 'DLV#' },
        ScanIndexForward: false,
      },
      page,
      { PK },
      (item) => withoutKeys<Delivery>(item),
    );
  }

  async saveDelivery(delivery: Delivery, expectedUpdatedAt: string, dueAt?: string): Promise<boolean> {
    return applied(
      this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...webhookKeys.delivery(delivery.orgId, delivery.webhookId, delivery.deliveryId),
            ...(dueAt ? webhookKeys.due(dueAt, delivery.orgId, delivery.webhookId, delivery.deliveryId) : {}),
            entity: 'DELIVERY',
            ...delivery,
          },
          ConditionExpression: 'updatedAt = :expected',
          ExpressionAttributeValues: { ':expected': expectedUpdatedAt },
        }),
      ),
    );
  }

  async dueDeliveries(now: Date, limit: number): Promise<Delivery[]> {
    // A global partition: its keys with the function's own role, each delivery with its organisation's (§25).
    const { items } = await dueListItems(this.db, this.tableName, {
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK <= :now',
      ExpressionAttributeValues: { ':pk': 'DLV#DUE', ':now': `${now.toISOString()}#~` },
      Limit: limit,
    });
    return items.map((item) => withoutKeys<Delivery>(item));
  }

  #toSubscription(item: Record<string, unknown>): Subscription {
    const { version, ...rest } = withoutKeys<Record<string, unknown>>(item);
    return rest as unknown as Subscription;
  }

  async #get(key: Record<string, string>): Promise<Record<string, unknown> | undefined> {
    const result = await this.db.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
    return result.Item ? withoutKeys<Record<string, unknown>>(result.Item) : undefined;
  }
}
