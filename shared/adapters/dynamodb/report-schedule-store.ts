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
import { dueListItems } from './lifecycle.ts';
import { queryPage } from './paging.ts';

/** Attempts of a change that keeps losing its version check before it answers SCHEDULE_CONFLICT. */
const MAX_VERSION_CONFLICTS = 6;

/**
 * A slot reserved this long ago with no schedule stored under its id was left by a creation that died between its two
 * writes (or a deletion between its two): the repair frees it. API functions time out within 30 s, so a younger slot
 * without a schedule may belong to a creation still in flight, and is kept.
 */
export const ABANDONED_SLOT_MS = 5 * 60_000;
const REPAIRS_PER_WRITE = 40;

/**
 * Report schedules in their organisation's partition (`RSC#<scheduleId>`, erased with it), their slot counter beside
 * them, and an active schedule's due time in the sparse GSI1 partition `RSC#DUE` (the sweeper's one Query a minute).
 *
 * The slot counter holds one entry per schedule, `slots.<scheduleId>` = when its slot was taken (ms), so each write to
 * it is idempotent and a drift is visible entry by entry: a creation takes the schedule's slot (one conditional write:
 * fewer than `limit` slots, or this id's own) and then stores the schedule; a deletion deletes the schedule and then
 * its slot. A crash between the two writes leaves a slot without a schedule; a refusal at the limit repairs the counter
 * from the organisation's schedules (`#repair`) before it decides.
 */
export class DynamoReportScheduleStore implements ReportScheduleStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(schedule: ReportSchedule, limit: number, now: Date): Promise<ReportSchedule | undefined> {
    const { organisationId: orgId, scheduleId } = schedule;
    if (!(await this.#takeSlot(orgId, scheduleId, limit, now))) {
      await this.#repair(orgId, now);
      if (!(await this.#takeSlot(orgId, scheduleId, limit, now))) return undefined;
    }
    // A failure from here on leaves the slot taken: if nothing was stored, the repair frees it once abandoned.
    const stored = await applied(
      this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: this.#item(schedule, 1),
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      ),
    );
    // Already there: stored by an earlier attempt under the same id (an Idempotency-Key's retry), which it answers.
    return stored ? schedule : this.get(orgId, scheduleId);
  }

  /**
   * Takes (or takes again) `scheduleId`'s slot, dated `now`: one conditional write, refused when the organisation
   * already holds `limit` other slots, or when its counter has no slot map yet (the repair makes it).
   */
  #takeSlot(orgId: string, scheduleId: string, limit: number, now: Date): Promise<boolean> {
    return applied(
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: scheduleKeys.count(orgId),
          UpdateExpression: 'SET slots.#id = :at',
          ConditionExpression: 'attribute_exists(slots) AND (size(slots) < :limit OR attribute_exists(slots.#id))',
          ExpressionAttributeNames: { '#id': scheduleId },
          ExpressionAttributeValues: { ':at': now.getTime(), ':limit': limit },
        }),
      ),
    );
  }

  /**
   * Makes the slot counter agree with the organisation's schedules, read by their keys (CONTRACT §23: a counter
   * left wrong by a crash must not refuse forever). A counter without a slot map (a new organisation, or the plain
   * count kept before) gets one slot per schedule. Otherwise, in one write conditional on each entry it changes:
   * a slot older than ABANDONED_SLOT_MS without a schedule is freed, and a schedule without a slot gets one. A
   * concurrent change of those entries fails the write; the caller then decides on the counter as it is.
   */
  async #repair(orgId: string, now: Date): Promise<void> {
    const counter = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: scheduleKeys.count(orgId), ConsistentRead: true }),
    );
    const stored = await this.#scheduleIds(orgId);
    const at = now.getTime();
    const slots = counter.Item?.slots as Record<string, number> | undefined;
    if (!slots) {
      await applied(
        this.db.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: scheduleKeys.count(orgId),
            UpdateExpression: 'SET slots = :slots, entity = :entity REMOVE schedules',
            ConditionExpression: 'attribute_not_exists(slots)',
            ExpressionAttributeValues: {
              ':slots': Object.fromEntries([...stored].map((id) => [id, at])),
              ':entity': 'REPORT_SCHEDULE_COUNT',
            },
          }),
        ),
      );
      return;
    }
    // At most REPAIRS_PER_WRITE entries a time (an expression's size is bounded); the next refusal repairs the rest.
    const abandoned = Object.entries(slots)
      .filter(([id, takenAt]) => !stored.has(id) && at - Number(takenAt) >= ABANDONED_SLOT_MS)
      .slice(0, REPAIRS_PER_WRITE);
    const missing = [...stored].filter((id) => slots[id] === undefined).slice(0, REPAIRS_PER_WRITE);
    if (abandoned.length === 0 && missing.length === 0) return;
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const conditions: string[] = [];
    const removes: string[] = [];
    const sets: string[] = [];
    abandoned.forEach(([id, takenAt], index) => {
      names[`#a${index}`] = id;
      values[`:a${index}`] = takenAt;
      conditions.push(`slots.#a${index} = :a${index}`);
      removes.push(`slots.#a${index}`);
    });
    missing.forEach((id, index) => {
      names[`#m${index}`] = id;
      conditions.push(`attribute_not_exists(slots.#m${index})`);
      sets.push(`slots.#m${index} = :at`);
    });
    if (sets.length > 0) values[':at'] = at;
    await applied(
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: scheduleKeys.count(orgId),
          UpdateExpression: [
            sets.length ? `SET ${sets.join(', ')}` : '',
            removes.length ? `REMOVE ${removes.join(', ')}` : '',
          ]
            .filter(Boolean)
            .join(' '),
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      ),
    );
  }

  /** The ids of the organisation's stored schedules (a consistent read of its partition's keys). */
  async #scheduleIds(orgId: string): Promise<Set<string>> {
    const { PK } = scheduleKeys.schedule(orgId, '');
    const ids = new Set<string>();
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
          ExpressionAttributeValues: { ':pk': PK, ':prefix': scheduleKeys.schedulePrefix },
          ProjectionExpression: 'SK',
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) ids.add(String(item.SK).slice(scheduleKeys.schedulePrefix.length));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return ids;
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
      // Lost the version check: read again after a short random wait, so racing writers do not meet again.
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
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
    throw new DomainError('SCHEDULE_CONFLICT', `report schedule ${scheduleId} is being changed by another request`, {
      retryAfterSeconds: 1,
    });
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
    if (deleted) await this.#freeSlot(orgId, scheduleId);
    return deleted;
  }

  async due(now: Date, limit: number): Promise<ReportSchedule[]> {
    const schedules: ReportSchedule[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      // A global partition: its keys with the function's own role, each schedule with its organisation's (§25).
      const page = await dueListItems(this.db, this.tableName, {
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK <= :now',
        ExpressionAttributeValues: { ':pk': scheduleKeys.duePartition, ':now': `${now.toISOString()}#~` },
        Limit: limit - schedules.length,
        ExclusiveStartKey: startKey,
      });
      schedules.push(...page.items.map((item) => this.#toSchedule(item)));
      startKey = page.lastEvaluatedKey;
    } while (startKey && schedules.length < limit);
    return schedules;
  }

  /** Frees the schedule's slot (idempotent; a counter without a slot map is left to the repair). */
  async #freeSlot(orgId: string, scheduleId: string): Promise<void> {
    await applied(
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: scheduleKeys.count(orgId),
          UpdateExpression: 'REMOVE slots.#id',
          ConditionExpression: 'attribute_exists(slots)',
          ExpressionAttributeNames: { '#id': scheduleId },
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
