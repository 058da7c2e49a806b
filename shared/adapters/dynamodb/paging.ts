import type { DynamoDBDocumentClient, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ValidationError } from '#shared/errors';
import type { Page, PageRequest } from '#shared/ports/identity-store';

const KEY_ATTRIBUTES = new Set(['PK', 'SK', 'GSI1PK', 'GSI1SK', 'GSI2PK', 'GSI2SK']);

const invalidCursor = () =>
  new ValidationError([{ pointer: '#/query/cursor', message: 'the cursor is not valid here' }]);

/**
 * A start key DynamoDB can take: the table's key, plus an index's key, all strings (every key of the table is one),
 * and the query's own partition, so that a crafted cursor could never reach another partition (another organisation)
 * nor make the call throw.
 */
function isStartKey(startKey: Record<string, unknown>, partition: Record<string, string>): boolean {
  const names = Object.keys(startKey);
  return (
    names.length <= 4 &&
    'PK' in startKey &&
    'SK' in startKey &&
    names.every((name) => KEY_ATTRIBUTES.has(name) && typeof startKey[name] === 'string' && startKey[name] !== '') &&
    Object.entries(partition).every(([name, value]) => startKey[name] === value)
  );
}

/**
 * Runs one page of a query. A start key that DynamoDB still refuses (one of another index's shape) is the cursor's
 * fault: 400 at `#/query/cursor`, never a 500.
 */
export async function queryPage<T>(
  db: DynamoDBDocumentClient,
  input: QueryCommandInput,
  page: PageRequest,
  partition: Record<string, string>,
  toItem: (item: Record<string, unknown>) => T,
): Promise<Page<T>> {
  if (page.startKey && !isStartKey(page.startKey, partition)) throw invalidCursor();
  try {
    const result = await db.send(new QueryCommand({ ...input, Limit: page.limit, ExclusiveStartKey: page.startKey }));
    return { items: (result.Items ?? []).map(toItem), nextKey: result.LastEvaluatedKey };
  } catch (error) {
    if (page.startKey && (error as { name?: string }).name === 'ValidationException') throw invalidCursor();
    throw error;
  }
}
