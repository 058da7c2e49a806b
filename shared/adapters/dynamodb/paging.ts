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

/** Query rounds one page may take when a filter drops items, before it answers with what it has and a cursor. */
const MAX_ROUNDS = 10;

/** The start key that resumes a query right after `item`: the table's key, and the index's when it queries one. */
function keyAfter(item: Record<string, unknown>, indexName: string | undefined): Record<string, unknown> {
  const names = ['PK', 'SK', ...(indexName ? [`${indexName}PK`, `${indexName}SK`] : [])];
  return Object.fromEntries(names.map((name) => [name, item[name]]));
}

/**
 * Runs one page of a query. A start key that DynamoDB still refuses (one of another index's shape) is the cursor's
 * fault: 400 at `#/query/cursor`, never a 500.
 * It reads one item past the page: DynamoDB answers a LastEvaluatedKey whenever it stopped at `Limit`, even when no
 * item follows, which would hand the caller a cursor to an empty page (CONTRACT §10: `nextCursor` is null on the last
 * page). A page is cut after its last item only when another one exists; a filter that drops items makes it read on
 * (a few rounds at most) until the page is full or the query ends.
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
    const raw: Record<string, unknown>[] = [];
    let startKey = page.startKey;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const result = await db.send(
        new QueryCommand({ ...input, Limit: page.limit + 1 - raw.length, ExclusiveStartKey: startKey }),
      );
      raw.push(...(result.Items ?? []));
      startKey = result.LastEvaluatedKey;
      if (!startKey || raw.length > page.limit) break;
    }
    if (raw.length > page.limit) {
      const items = raw.slice(0, page.limit);
      return { items: items.map(toItem), nextKey: keyAfter(items.at(-1)!, input.IndexName) };
    }
    return { items: raw.map(toItem), nextKey: startKey };
  } catch (error) {
    if (page.startKey && (error as { name?: string }).name === 'ValidationException') throw invalidCursor();
    throw error;
  }
}
