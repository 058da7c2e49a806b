import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { scheduleKeys } from '#shared/adapters/dynamodb/keys';
import { ABANDONED_SLOT_MS, DynamoReportScheduleStore } from '#shared/adapters/dynamodb/report-schedule-store';
import type { ReportSchedule } from '#shared/domain/reports/schedule';
import { DomainError } from '#shared/errors';
import { ulidIds } from '#shared/ports/ids';
import { useDynamo } from '#test/support/dynamo';

const table = useDynamo();
const ids = ulidIds();
const NOW = new Date('2026-11-28T10:00:00.000Z');
const later = (ms: number) => new Date(NOW.getTime() + ms);

function schedule(orgId: string, scheduleId = ids.next('rsc')): ReportSchedule {
  return {
    scheduleId,
    organisationId: orgId,
    reportType: 'CHAT',
    filters: {},
    schedule: { every: 'day', at: '08:00', timezone: 'UTC' },
    status: 'active',
    nextRunAt: '2026-11-29T08:00:00.000Z',
    createdBy: 'cli_1',
    createdAt: NOW.toISOString(),
    updatedAt: NOW.toISOString(),
  };
}

const store = () => new DynamoReportScheduleStore(table.db, table.tableName);

async function slots(orgId: string) {
  const { Item } = await table.db.send(
    new GetCommand({ TableName: table.tableName, Key: scheduleKeys.count(orgId), ConsistentRead: true }),
  );
  return Item?.slots as Record<string, number> | undefined;
}

/** What a creation that died between its two writes leaves: a slot taken at `at`, no schedule. */
async function crashedCreation(orgId: string, at: Date) {
  const scheduleId = ids.next('rsc');
  await table.db.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: scheduleKeys.count(orgId),
      UpdateExpression: 'SET slots.#id = :at',
      ExpressionAttributeNames: { '#id': scheduleId },
      ExpressionAttributeValues: { ':at': at.getTime() },
    }),
  );
  return scheduleId;
}

describe('the report-schedule slot counter repairs itself (CONTRACT §23, issue 34)', () => {
  it('frees the slots of creations that died between their two writes, once abandoned, and then decides', async () => {
    const orgId = crypto.randomUUID();
    const limit = 3;
    const kept = await store().create(schedule(orgId), limit, NOW);
    expect(kept).toBeDefined();
    const dead = [await crashedCreation(orgId, NOW), await crashedCreation(orgId, NOW)];
    expect(Object.keys((await slots(orgId))!)).toHaveLength(3);

    // Within ABANDONED_SLOT_MS a slot without a schedule may be a creation still in flight: it counts.
    expect(await store().create(schedule(orgId), limit, later(60_000))).toBeUndefined();
    expect(Object.keys((await slots(orgId))!).sort()).toEqual([kept!.scheduleId, ...dead].sort());

    // Past it, the refusal at the limit recounts the schedules by their keys and frees both before it decides.
    const at = later(ABANDONED_SLOT_MS);
    const second = await store().create(schedule(orgId), limit, at);
    const third = await store().create(schedule(orgId), limit, at);
    expect(second).toBeDefined();
    expect(third).toBeDefined();
    expect(await store().create(schedule(orgId), limit, at)).toBeUndefined();
    expect(Object.keys((await slots(orgId))!).sort()).toEqual(
      [kept!.scheduleId, second!.scheduleId, third!.scheduleId].sort(),
    );
  });

  it('frees the slot of a deletion that died after deleting the schedule', async () => {
    const orgId = crypto.randomUUID();
    const first = (await store().create(schedule(orgId), 1, NOW))!;
    // The schedule is gone, its slot is not (the second write never ran).
    await table.db.send(
      new DeleteCommand({ TableName: table.tableName, Key: scheduleKeys.schedule(orgId, first.scheduleId) }),
    );

    const next = await store().create(schedule(orgId), 1, later(ABANDONED_SLOT_MS));

    expect(next).toBeDefined();
    expect(Object.keys((await slots(orgId))!)).toEqual([next!.scheduleId]);
  });

  it('rebuilds a plain count kept before (drifted to the limit) from the schedules stored', async () => {
    const orgId = crypto.randomUUID();
    const stored = [(await store().create(schedule(orgId), 5, NOW))!, (await store().create(schedule(orgId), 5, NOW))!];
    // The counter as the earlier version kept it, two too many: a number, no slots.
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: scheduleKeys.count(orgId),
        UpdateExpression: 'SET schedules = :four REMOVE slots',
        ExpressionAttributeValues: { ':four': 4 },
      }),
    );

    const created = await Promise.all([1, 2, 3].map(() => store().create(schedule(orgId), 4, NOW)));

    expect(created.filter(Boolean)).toHaveLength(2);
    const { Item } = await table.db.send(
      new GetCommand({ TableName: table.tableName, Key: scheduleKeys.count(orgId), ConsistentRead: true }),
    );
    expect(Item?.schedules).toBeUndefined();
    expect(Object.keys(Item?.slots as object).sort()).toEqual(
      [...stored, ...created.filter((item) => item !== undefined)].map((item) => item!.scheduleId).sort(),
    );
  });

  it('never passes the limit under concurrent creations and deletions', async () => {
    const orgId = crypto.randomUUID();
    const limit = 4;
    const first = await Promise.all(Array.from({ length: 10 }, () => store().create(schedule(orgId), limit, NOW)));
    const made = first.filter((item) => item !== undefined);
    expect(made).toHaveLength(limit);

    const [, again] = await Promise.all([
      Promise.all(made.slice(0, 2).map((item) => store().delete(orgId, item!.scheduleId))),
      Promise.all(Array.from({ length: 6 }, () => store().create(schedule(orgId), limit, NOW))),
    ]);

    const page = await store().list(orgId, { limit: 100 });
    expect(page.items.length).toBeLessThanOrEqual(limit);
    expect(again.filter(Boolean).length).toBeLessThanOrEqual(2);
    expect(Object.keys((await slots(orgId))!).sort()).toEqual(page.items.map((item) => item.scheduleId).sort());
  });

  it('answers a creation again under the same id with the schedule stored, in its one slot', async () => {
    const orgId = crypto.randomUUID();
    const first = schedule(orgId);
    expect(await store().create(first, 1, NOW)).toEqual(first);

    const retry = await store().create({ ...first, createdAt: later(1000).toISOString() }, 1, later(1000));

    expect(retry).toEqual(first);
    expect(Object.keys((await slots(orgId))!)).toEqual([first.scheduleId]);
  });
});

/**
 * A store whose every write of a schedule is preceded by another writer's change to it, landing first: `rivals` times
 * (every time when undefined).
 */
function contended(rivals?: number) {
  let left = rivals ?? Number.POSITIVE_INFINITY;
  const counted = { attempts: 0 };
  const client = {
    send: async (command: { constructor: { name: string }; input: { Item?: Record<string, unknown> } }) => {
      if (command.constructor.name === 'PutCommand' && command.input.Item?.entity === 'REPORT_SCHEDULE') {
        counted.attempts += 1;
        if (left-- > 0) {
          const { organisationId, scheduleId } = command.input.Item as { organisationId: string; scheduleId: string };
          await store().update(organisationId, scheduleId, () => ({
            updatedAt: later(counted.attempts).toISOString(),
          }));
        }
      }
      return table.db.send(command as never);
    },
  } as unknown as typeof table.db;
  return Object.assign(counted, { store: new DynamoReportScheduleStore(client, table.tableName) });
}

describe('a schedule change that keeps losing its version check (issue 34)', () => {
  it('is tried again and, still losing, answers SCHEDULE_CONFLICT with a Retry-After', async () => {
    const orgId = crypto.randomUUID();
    const { scheduleId } = (await store().create(schedule(orgId), 5, NOW))!;
    const loser = contended();

    const error = await loser.store.update(orgId, scheduleId, () => ({ status: 'paused' })).catch((caught) => caught);

    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ code: 'SCHEDULE_CONFLICT', retryAfterSeconds: 1 });
    expect(loser.attempts).toBe(6);
    expect(await store().get(orgId, scheduleId)).toMatchObject({ status: 'active' });
  });

  it('wins once the other writer stops', async () => {
    const orgId = crypto.randomUUID();
    const { scheduleId } = (await store().create(schedule(orgId), 5, NOW))!;
    const winner = contended(3);

    const result = await winner.store.update(orgId, scheduleId, () => ({ status: 'paused' }));

    expect(result).toMatchObject({ changed: true, schedule: { status: 'paused' } });
    expect(winner.attempts).toBe(4);
    expect(await store().get(orgId, scheduleId)).toMatchObject({ status: 'paused' });
  });
});
