import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { encodeTime } from 'ulid';
import type { OverviewDelivery, OverviewEvent, OverviewSource } from '#shared/domain/console/overview';
import { feedKeys, feedSortKey, webhookKeys } from './keys.ts';

const PAGE = 1_000;

/**
 * The Overview's reads (shared/domain/console/overview.ts): the events feed from its newest end, and each
 * subscription's deliveries by the time in their ULID ids. Projections keep each page small.
 */
export class DynamoConsoleOverview implements OverviewSource {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async recentEvents(orgId: string, options: { from: string; latest: number; limit: number }) {
    const { Item: head } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: feedKeys.head(orgId), ConsistentRead: true }),
    );
    const top = Number(head?.seq ?? 0);
    // Entries committed but not yet written as items sit in the head, above every item.
    const pending = Object.entries((head?.pending ?? {}) as Record<string, OverviewEvent>)
      .sort(([a], [b]) => Number(b) - Number(a))
      .map(([, entry]) => pick(entry));
    const events: OverviewEvent[] = [...pending];
    const enough = () => events.length >= options.latest && (events.at(-1)?.timestamp ?? '') < options.from;
    let startKey: Record<string, unknown> | undefined;
    while (top > 0 && !enough() && events.length < options.limit) {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :first AND :last',
          ExpressionAttributeNames: { '#type': 'type', '#timestamp': 'timestamp' },
          ExpressionAttributeValues: {
            ':pk': feedKeys.partition(orgId),
            ':first': feedSortKey(1),
            ':last': feedSortKey(top),
          },
          ProjectionExpression: 'eventId, #type, #timestamp',
          ScanIndexForward: false,
          Limit: PAGE,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        if (!events.some((event) => event.eventId === item.eventId)) events.push(pick(item as OverviewEvent));
      }
      startKey = page.LastEvaluatedKey;
      if (!startKey) break;
    }
    return { events: events.slice(0, options.limit), complete: enough() || startKey === undefined };
  }

  async recentDeliveries(orgId: string, options: { from: string; limit: number }) {
    const { Items: subscriptions = [] } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: {
          ':pk': webhookKeys.subscription(orgId, '').PK,
          ':prefix': webhookKeys.subscriptionPrefix,
        },
        ProjectionExpression: 'webhookId',
      }),
    );
    const floor = webhookKeys.deliverySortKey(`dlv_${encodeTime(Date.parse(options.from), 10)}`);
    const deliveries: OverviewDelivery[] = [];
    let complete = true;
    for (const { webhookId } of subscriptions as { webhookId: string }[]) {
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await this.db.send(
          new QueryCommand({
            TableName: this.tableName,
            KeyConditionExpression: 'PK = :pk AND SK BETWEEN :floor AND :top',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':pk': webhookKeys.deliveries(orgId, webhookId),
              ':floor': floor,
              ':top': webhookKeys.deliverySortKey('dlv_~'),
            },
            ProjectionExpression: '#status, createdAt',
            Limit: PAGE,
            ExclusiveStartKey: startKey,
          }),
        );
        deliveries.push(...((page.Items ?? []) as OverviewDelivery[]));
        startKey = page.LastEvaluatedKey;
        if (startKey && deliveries.length >= options.limit) {
          complete = false;
          break;
        }
      } while (startKey);
      if (!complete) break;
    }
    return { deliveries, complete };
  }
}

const pick = ({ eventId, type, timestamp }: OverviewEvent): OverviewEvent => ({ eventId, type, timestamp });
