import type { DynamoDBDocumentClient, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ValidationError } from '#shared/errors';
import type { Page, PageRequest } from '#shared/ports/identity-store';

/**
 * Runs one page of a query. A start key is accepted only if its partition attributes equal the query's own, so a
 * crafted cursor can never reach another partition (another organisation).
 */
export async function queryPage<T>(
  db: DynamoDBDocumentClient,
  input: QueryCommandInput,
  page: PageRequest,
  partition: Record<string, string>,
  toItem: (item: Record<string, unknown>) => T,
): Promise<Page<T>> {
  if (page.startKey) {
    const valid =
      Object.entries(partition).every(([name, value]) => page.startKey?.[name] === value) &&
      Object.values(page.startKey).every((value) => typeof value === 'string' || typeof value === 'number');
    if (!valid) throw new ValidationError([{ pointer: '#/query/cursor', message: 'the cursor is not valid here' }]);
  }
  const result = await db.send(new QueryCommand({ ...input, Limit: page.limit, ExclusiveStartKey: page.startKey }));
  return { items: (result.Items ?? []).map(toItem), nextKey: result.LastEvaluatedKey };
}
