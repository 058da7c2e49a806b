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
});
