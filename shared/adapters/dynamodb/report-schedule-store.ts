import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { type ReportSchedule, sweepAt } from '#shared/domain/reports/schedule';
import { DomainError } from '#shared/errors';
import type { PageRequest } from '#shared/ports/identity-store';
import type { ReportScheduleStore } from '#shared/ports/report-schedule-store';
import { applied } from './client.ts';
import { scheduleKeys, withoutKeys } from './keys.ts';
import { queryPage } from './paging.ts';

const MAX_VERSION_CONFLICTS = 5;

/**
 * Report schedules in their organisation's partition (`RSC#<scheduleId>`, erased with it), their slot counter beside
 * them, and an active schedule's due time in the sparse GSI1 partition `RSC#DUE` (the sweeper's one Query a minute).
 */
export class DynamoReportScheduleStore implements ReportScheduleStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(schedule: ReportSchedule, limit: number): Promise<boolean> {
    const taken = await applied(
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: scheduleKeys.count(schedule.organisationId),
          UpdateExpression: 'SET entity = :entity ADD schedules :one',
          ConditionExpression: 'attribute_not_exists(schedules) OR schedules < :limit',
          ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':entity': 'REPORT_SCHEDULE_COUNT' },
        }),
      ),
    );
    if (!taken) return false;
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: this.#item(schedule, 1),
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    } catch (error) {
      await this.#freeSlot(schedule.organisationId);
      throw error;
    }
    return true;
  }

  async get(orgId: string, scheduleId: string): Promise<ReportSchedule | undefined> {
    const item = await this.#get(orgId, scheduleId);
    return item ? this.#toSchedule(item) : undefined;
  }

  list(orgId: string, page: PageRequest) {
    const { PK } = scheduleKeys.schedule(orgId, '');
    return queryPage(
      this.db,
      {
        TableName: this.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': PK, ':prefix': scheduleKeys.schedulePrefix },
      },
      page,
      { PK },
      (item) => this.#toSchedule(item),
    );
  }

  async update(
    orgId: string,
    scheduleId: string,
    change: (schedule: ReportSchedule) => Partial<ReportSchedule> | undefined,
  ) {
    for (let attempt = 0; attempt < MAX_VERSION_CONFLICTS; attempt++) {
      const item = await this.#get(orgId, scheduleId);
      if (!item) return undefined;
      const current = this.#toSchedule(item);
      const changes = change(current);
      if (!changes) return { schedule: current, changed: false };
      const next = { ...current, ...changes } as ReportSchedule;
      // An attribute set to undefined is removed (removeUndefinedValues).
      const written = await applied(
        this.db.send(
          new PutCommand({
            TableName: this.tableName,
            Item: this.#item(next, Number(item.version) + 1),
            ConditionExpression: 'version = :version',
            ExpressionAttributeValues: { ':version': item.version },
          }),
        ),
      );
      if (written) return { schedule: next, changed: true };
    }
    throw new DomainError('INTERNAL', `report schedule ${scheduleId} is contended`);
  }

  async delete(orgId: string, scheduleId: string): Promise<boolean> {
    const deleted = await applied(
      this.db.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: scheduleKeys.schedule(orgId, scheduleId),
          ConditionExpression: 'attribute_exists(PK)',
        }),
      ),
    );
    if (deleted) await this.#freeSlot(orgId);
    return deleted;
  }

  async due(now: Date, limit: number): Promise<ReportSchedule[]> {
    const schedules: ReportSchedule[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const result = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: 'GSI1',
          KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK <= :now',
          ExpressionAttributeValues: { ':pk': scheduleKeys.duePartition, ':now': `${now.toISOString()}#~` },
          Limit: limit - schedules.length,
          ExclusiveStartKey: startKey,
        }),
      );
      schedules.push(...(result.Items ?? []).map((item) => this.#toSchedule(item)));
      startKey = result.LastEvaluatedKey;
    } while (startKey && schedules.length < limit);
    return schedules;
  }

  /** Frees one slot; a count already at zero stays there. */
  async #freeSlot(orgId: string): Promise<void> {
    await applied(
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: scheduleKeys.count(orgId),
          UpdateExpression: 'ADD schedules :minusOne',
          ConditionExpression: 'schedules > :zero',
          ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
        }),
      ),
    );
  }

  #item(schedule: ReportSchedule, version: number) {
    const due = sweepAt(schedule);
    return {
      ...scheduleKeys.schedule(schedule.organisationId, schedule.scheduleId),
      ...(due ? scheduleKeys.due(due, schedule.organisationId, schedule.scheduleId) : {}),
      entity: 'REPORT_SCHEDULE',
      version,
      ...schedule,
    };
  }

  #toSchedule(item: Record<string, unknown>): ReportSchedule {
    const { version, ...rest } = withoutKeys<Record<string, unknown>>(item);
    return rest as unknown as ReportSchedule;
  }

  async #get(orgId: string, scheduleId: string): Promise<Record<string, unknown> | undefined> {
    const result = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: scheduleKeys.schedule(orgId, scheduleId),
        ConsistentRead: true,
      }),
    );
    return result.Item ? withoutKeys<Record<string, unknown>>(result.Item) : undefined;
  }
}
