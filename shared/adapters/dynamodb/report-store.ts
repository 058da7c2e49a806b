import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Report, ReportStatus, StoredReportStatus } from '#shared/domain/reports/report';
import { OPEN_REPORT_STATUSES } from '#shared/domain/reports/report';
import type { PageRequest } from '#shared/ports/identity-store';
import type { ReportStore, WindowClaim } from '#shared/ports/report-store';
import { applied, isConditionalCheckFailed } from './client.ts';
import { reportKeys, withoutKeys } from './keys.ts';
import { dueListItems, markItemPublished, sparseIndexItems, transitionItem } from './lifecycle.ts';
import { queryPage } from './paging.ts';

export class DynamoReportStore implements ReportStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async claimWindow(
    orgId: string,
    reportType: string,
    reportId: string,
    now: Date,
    windowSeconds: number,
  ): Promise<WindowClaim> {
    const nowMs = now.getTime();
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...reportKeys.window(orgId, reportType),
            entity: 'REPORT_WINDOW',
            reportId,
            requestedAt: now.toISOString(),
            requestedAtMs: nowMs,
            active: true,
            ttl: Math.floor(nowMs / 1000) + windowSeconds + 86_400,
          },
          ConditionExpression: 'attribute_not_exists(PK) OR (requestedAtMs <= :cutoff AND active = :inactive)',
          ExpressionAttributeValues: { ':cutoff': nowMs - windowSeconds * 1000, ':inactive': false },
        }),
      );
      return { claimed: true };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
    const result = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: reportKeys.window(orgId, reportType), ConsistentRead: true }),
    );
    const item = result.Item;
    if (!item) return this.claimWindow(orgId, reportType, reportId, now, windowSeconds);
    return {
      claimed: false,
      blockingReportId: item.reportId,
      requestedAt: item.requestedAt,
      active: item.active === true,
    };
  }

  async settleWindow(orgId: string, reportType: string, reportId: string): Promise<void> {
    await applied(
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: reportKeys.window(orgId, reportType),
          UpdateExpression: 'SET active = :inactive',
          ConditionExpression: 'reportId = :reportId',
          ExpressionAttributeValues: { ':inactive': false, ':reportId': reportId },
        }),
      ),
    );
  }

  async releaseWindow(orgId: string, reportType: string, reportId: string): Promise<void> {
    await applied(
      this.db.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: reportKeys.window(orgId, reportType),
          ConditionExpression: 'reportId = :reportId',
          ExpressionAttributeValues: { ':reportId': reportId },
        }),
      ),
    );
  }

  async create(report: Report): Promise<boolean> {
    return applied(
      this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...reportKeys.report(report.organisationId, report.reportId),
            ...reportKeys.open(report.requestedAt, report.organisationId, report.reportId),
            entity: 'REPORT',
            ...report,
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      ),
    );
  }

  async get(orgId: string, reportId: string): Promise<Report | undefined> {
    const result = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: reportKeys.report(orgId, reportId), ConsistentRead: true }),
    );
    return result.Item ? withoutKeys<Report>(result.Item) : undefined;
  }

  list(orgId: string, filter: { reportType?: string; status?: ReportStatus; now: Date }, page: PageRequest) {
    const { PK } = reportKeys.report(orgId, '');
    const conditions: string[] = [];
    const values: Record<string, unknown> = { ':pk': PK, ':prefix': reportKeys.reportPrefix };
    const names: Record<string, string> = {};
    if (filter.reportType) {
      conditions.push('reportType = :type');
      values[':type'] = filter.reportType;
    }
    if (filter.status) {
      names['#status'] = 'status';
      const stored = filter.status === 'EXPIRED' ? 'COMPLETED' : filter.status;
      conditions.push('#status = :status');
      values[':status'] = stored;
      if (filter.status === 'EXPIRED' || filter.status === 'COMPLETED') {
        conditions.push(filter.status === 'EXPIRED' ? 'expiresAt <= :now' : 'expiresAt > :now');
        values[':now'] = filter.now.toISOString();
      }
    }
    return queryPage(
      this.db,
      {
        TableName: this.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ...(conditions.length ? { FilterExpression: conditions.join(' AND ') } : {}),
        ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
        ExpressionAttributeValues: values,
        ScanIndexForward: false,
      },
      page,
      { PK },
      (item) => withoutKeys<Report>(item),
    );
  }

  transition(
    orgId: string,
    reportId: string,
    from: StoredReportStatus[],
    to: StoredReportStatus,
    changes: Parameters<ReportStore['transition']>[4],
  ): Promise<Report | undefined> {
    const { now, ...fields } = changes;
    // A completed report's file waits in the expiry index for the sweeper, which deletes it at expiresAt.
    const expiring =
      to === 'COMPLETED' && fields.expiresAt ? reportKeys.expiring(fields.expiresAt, orgId, reportId) : undefined;
    return transitionItem<Report>(this.db, this.tableName, reportKeys.report(orgId, reportId), {
      from,
      to,
      fields: { ...fields, ...expiring },
      index: OPEN_REPORT_STATUSES.includes(to) ? undefined : reportKeys.unpublished(now, orgId, reportId),
    });
  }

  async claimRun(
    orgId: string,
    reportId: string,
    now: string,
    leaseUntil: string,
    owner: string,
  ): Promise<Report | undefined> {
    try {
      const result = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: reportKeys.report(orgId, reportId),
          UpdateExpression:
            'SET #status = :processing, leaseUntil = :lease, leaseOwner = :owner, startedAt = if_not_exists(startedAt, :now)',
          ConditionExpression:
            'attribute_exists(PK) AND (#status = :pending OR (#status = :processing AND (attribute_not_exists(leaseUntil) OR leaseUntil <= :now)))',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':pending': 'PENDING',
            ':processing': 'PROCESSING',
            ':now': now,
            ':lease': leaseUntil,
            ':owner': owner,
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return withoutKeys<Report>(result.Attributes ?? {});
    } catch (error) {
      if (isConditionalCheckFailed(error)) return undefined;
      throw error;
    }
  }

  renewRun(orgId: string, reportId: string, owner: string, leaseUntil: string): Promise<boolean> {
    return this.#conditionalSet(
      orgId,
      reportId,
      'SET leaseUntil = :lease',
      '#status = :processing AND leaseOwner = :owner',
      {
        ':processing': 'PROCESSING',
        ':owner': owner,
        ':lease': leaseUntil,
      },
    );
  }

  async releaseRun(orgId: string, reportId: string, owner: string, now: string): Promise<void> {
    await this.#conditionalSet(
      orgId,
      reportId,
      'SET leaseUntil = :now',
      '#status = :processing AND leaseOwner = :owner',
      {
        ':processing': 'PROCESSING',
        ':owner': owner,
        ':now': now,
      },
    );
  }

  markExpiredRunRequeued(orgId: string, reportId: string, leaseUntil: string, now: string): Promise<boolean> {
    return this.#conditionalSet(
      orgId,
      reportId,
      'SET requeuedAt = :now',
      '#status = :processing AND leaseUntil = :lease AND (attribute_not_exists(requeuedAt) OR requeuedAt < leaseUntil)',
      { ':processing': 'PROCESSING', ':lease': leaseUntil, ':now': now },
    );
  }

  /** One conditional update of a report; false when the condition did not hold. */
  async #conditionalSet(
    orgId: string,
    reportId: string,
    update: string,
    condition: string,
    values: Record<string, unknown>,
  ): Promise<boolean> {
    return applied(
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: reportKeys.report(orgId, reportId),
          UpdateExpression: update,
          ConditionExpression: condition,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: values,
        }),
      ),
    );
  }

  markRequeued(orgId: string, reportId: string, requeues: number, now: string): Promise<boolean> {
    return this.#conditionalSet(
      orgId,
      reportId,
      'SET requeues = :next, requeuedAt = :now',
      '#status = :pending AND (attribute_not_exists(requeues) OR requeues = :requeues)',
      { ':pending': 'PENDING', ':requeues': requeues, ':next': requeues + 1, ':now': now },
    );
  }

  markPublished(orgId: string, reportId: string, now: string): Promise<void> {
    return markItemPublished(this.db, this.tableName, reportKeys.report(orgId, reportId), now);
  }

  listOpen(limit: number): Promise<Report[]> {
    return sparseIndexItems(this.db, this.tableName, reportKeys.openPartition, limit);
  }

  listUnpublished(limit: number): Promise<Report[]> {
    return sparseIndexItems(this.db, this.tableName, reportKeys.unpublishedPartition, limit);
  }
  async listExpired(now: string, limit: number): Promise<Report[]> {
    // A global partition: its keys with the function's own role, each report with its organisation's (§25).
    const { items } = await dueListItems(this.db, this.tableName, {
      IndexName: 'GSI2',
      KeyConditionExpression: 'GSI2PK = :pk AND GSI2SK <= :now',
      ExpressionAttributeValues: { ':pk': reportKeys.expiringPartition, ':now': `${now}#~` },
      Limit: limit,
    });
    return items.map((item) => withoutKeys<Report>(item));
  }

  async markFileDeleted(orgId: string, reportId: string, now: string): Promise<boolean> {
    return applied(
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: reportKeys.report(orgId, reportId),
          UpdateExpression: 'SET fileDeletedAt = :now REMOVE GSI2PK, GSI2SK',
          ConditionExpression: 'attribute_exists(GSI2PK) AND expiresAt <= :now',
          ExpressionAttributeValues: { ':now': now },
        }),
      ),
    );
  }
}
