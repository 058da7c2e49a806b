import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { limitKeys } from '#shared/adapters/dynamodb/keys';
import { DynamoLimits } from '#shared/adapters/dynamodb/limits';
import { leaseChunk } from '#shared/adapters/dynamodb/rate-allowance';
import { useDynamo } from '#test/support/dynamo';

const ORG_A = '0b6e8f7a-1c2d-4e3f-8a9b-0c1d2e3f4a5b';
const ORG_B = '9f8e7d6c-5b4a-4c3d-9e2f-1a0b9c8d7e6f';

/** A container: its own DynamoLimits over the shared table, with its writes counted. */
function container(db: DynamoDBDocumentClient, tableName: string) {
  const counted = { writes: 0 };
  const client = {
    send: (command: { constructor: { name: string } }) => {
      if (command.constructor.name === 'UpdateCommand') counted.writes += 1;
      return db.send(command as never);
    },
  } as unknown as DynamoDBDocumentClient;
  return Object.assign(counted, { limits: new DynamoLimits(client, tableName) });
}

describe('the request quota leased in chunks (CONTRACT §18, issue 29)', () => {
  const table = useDynamo();

  it('lets K containers hammering one organisation allow at most the limit, at about one write per chunk, and leaves another organisation alone', async () => {
    const limit = 1000;
    const windowSeconds = 60;
    const at = new Date('2026-11-28T12:00:15Z');
    const containers = Array.from({ length: 4 }, () => container(table.db, table.tableName));
    const attempts = 1600;

    const answers = await Promise.all(
      Array.from({ length: attempts }, (_, index) =>
        containers[(index * 7) % containers.length]!.limits.take('org-requests', ORG_A, limit, windowSeconds, at),
      ),
    );

    const allowed = answers.filter((answer) => answer.allowed).length;
    const chunk = leaseChunk(limit);
    expect(chunk).toBe(25);
    expect(allowed).toBeLessThanOrEqual(limit);
    expect(allowed).toBeGreaterThanOrEqual(limit - containers.length * (chunk - 1));
    for (const refusal of answers.filter((answer) => !answer.allowed)) expect(refusal.retryAfterSeconds).toBe(45);
    const counter = await table.db.send(
      new GetCommand({
        TableName: table.tableName,
        Key: limitKeys.rateWindow('org-requests', ORG_A, Date.parse('2026-11-28T12:00:00Z') / 1000),
        ConsistentRead: true,
      }),
    );
    expect(counter.Item?.hits).toBeLessThanOrEqual(limit);
    // One write per chunk, plus at most a few per container when the window fills: never one per request.
    const writes = containers.reduce((sum, { writes }) => sum + writes, 0);
    expect(writes).toBeLessThanOrEqual(Math.ceil(limit / chunk) + containers.length * 5);
    expect(writes / attempts).toBeLessThan(0.05);

    // Refusals once the window is full cost nothing.
    const before = containers.map(({ writes }) => writes);
    for (const { limits } of containers) {
      expect((await limits.take('org-requests', ORG_A, limit, windowSeconds, at)).allowed).toBe(false);
    }
    expect(containers.map(({ writes }) => writes)).toEqual(before);

    // Another organisation, and the next window, are untouched.
    for (const { limits } of containers) {
      expect((await limits.take('org-requests', ORG_B, limit, windowSeconds, at)).allowed).toBe(true);
      expect(
        (await limits.take('org-requests', ORG_A, limit, windowSeconds, new Date(at.getTime() + 60_000))).allowed,
      ).toBe(true);
    }
  });

  it('is exact for a small limit across containers: a lease of one unit each', async () => {
    const at = new Date('2026-11-28T13:00:05Z');
    const containers = Array.from({ length: 3 }, () => container(table.db, table.tableName));

    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, index) => containers[index % 3]!.limits.take('group-create', ORG_A, 5, 60, at)),
    );

    expect(leaseChunk(5)).toBe(1);
    expect(answers.filter((answer) => answer.allowed)).toHaveLength(5);
  });
});
