import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { queryPage } from '#shared/adapters/dynamodb/paging';
import { ValidationError } from '#shared/errors';

const PARTITION = { PK: 'ORG#a' };

function fakeDb(outcome: () => unknown) {
  const calls: unknown[] = [];
  const db = {
    send: async (command: { input: unknown }) => {
      calls.push(command.input);
      return outcome();
    },
  } as unknown as DynamoDBDocumentClient;
  return { db, calls };
}

const page = (startKey: Record<string, unknown>) =>
  queryPage(fakeDb(() => ({ Items: [] })).db, { TableName: 't' }, { limit: 1, startKey }, PARTITION, (item) => item);

describe('queryPage', () => {
  it.each([
    ['another partition', { PK: 'ORG#b', SK: 'CHANNEL#1' }],
    ['a number where the table has strings', { PK: 'ORG#a', SK: 5 }],
    ['an empty key value', { PK: 'ORG#a', SK: '' }],
    ['a nested object', { PK: 'ORG#a', SK: { S: 'x' } }],
    ['an attribute that is no key', { PK: 'ORG#a', SK: 'CHANNEL#1', name: 'x' }],
    ['no sort key', { PK: 'ORG#a' }],
  ])('refuses a start key with %s at #/query/cursor before calling DynamoDB', async (_, startKey) => {
    await expect(page(startKey)).rejects.toBeInstanceOf(ValidationError);
  });

  it('turns DynamoDB refusing a start key into a cursor error, not a 500', async () => {
    const refusal = Object.assign(new Error('The provided starting key is invalid'), { name: 'ValidationException' });
    const { db } = fakeDb(() => {
      throw refusal;
    });

    const outcome = queryPage(
      db,
      { TableName: 't' },
      { limit: 1, startKey: { PK: 'ORG#a', SK: 'X', GSI1PK: 'Y' } },
      PARTITION,
      (item) => item,
    );

    await expect(outcome).rejects.toMatchObject({ errors: [{ pointer: '#/query/cursor' }] });
  });

  it('gives no cursor on a page that ends the query, though DynamoDB stopped at its Limit (CONTRACT §10)', async () => {
    const items = [
      { PK: 'ORG#a', SK: 'R#1' },
      { PK: 'ORG#a', SK: 'R#2' },
    ];
    // DynamoDB's own behaviour: a LastEvaluatedKey whenever it stopped at Limit, even on the last item.
    const { db, calls } = fakeDb(() => {
      const input = calls.at(-1) as { Limit: number; ExclusiveStartKey?: { SK: string } };
      const from = input.ExclusiveStartKey ? items.findIndex((item) => item.SK === input.ExclusiveStartKey!.SK) + 1 : 0;
      const slice = items.slice(from, from + input.Limit);
      return { Items: slice, LastEvaluatedKey: slice.length === input.Limit ? slice.at(-1) : undefined };
    });
    const read = (startKey?: Record<string, unknown>) =>
      queryPage(db, { TableName: 't' }, { limit: 1, startKey }, PARTITION, (item) => item);

    const first = await read();
    const second = await read(first.nextKey);

    expect(first).toEqual({ items: [items[0]], nextKey: { PK: 'ORG#a', SK: 'R#1' } });
    expect(second).toEqual({ items: [items[1]], nextKey: undefined });
  });

  it("resumes an index query after the page's last item, with the index's key beside the table's", async () => {
    const item = (n: number) => ({ PK: `C#${n}`, SK: 'META', GSI1PK: 'ORG#a#GROUPS', GSI1SK: `T#${n}`, name: `g${n}` });
    const { db } = fakeDb(() => ({ Items: [item(1), item(2)], LastEvaluatedKey: item(2) }));

    const result = await queryPage(db, { TableName: 't', IndexName: 'GSI1' }, { limit: 1 }, PARTITION, (i) => i);

    expect(result.nextKey).toEqual({ PK: 'C#1', SK: 'META', GSI1PK: 'ORG#a#GROUPS', GSI1SK: 'T#1' });
  });

  it('reads on while a filter drops items, until the page is full or the query ends', async () => {
    const rounds = [
      { Items: [], LastEvaluatedKey: { PK: 'ORG#a', SK: 'R#3' } },
      { Items: [{ PK: 'ORG#a', SK: 'R#7' }], LastEvaluatedKey: { PK: 'ORG#a', SK: 'R#9' } },
      { Items: [] },
    ];
    const { db, calls } = fakeDb(() => rounds[calls.length - 1]);

    const result = await queryPage(db, { TableName: 't' }, { limit: 2 }, PARTITION, (i) => i);

    expect(result).toEqual({ items: [{ PK: 'ORG#a', SK: 'R#7' }], nextKey: undefined });
    expect(calls.map((input) => (input as { Limit: number }).Limit)).toEqual([3, 3, 2]);
  });
});
