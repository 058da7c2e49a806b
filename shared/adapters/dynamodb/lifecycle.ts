import {
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { actingFor, asService } from '#shared/adapters/aws/tenant-scope';
import { isConditionalCheckFailed } from './client.ts';
import { organisationOfPartition, withoutKeys } from './keys.ts';

/**
 * The state machine shared by group requests and reports: one conditional update moves an item from one of `from`
 * to `to` and sets `fields`; a move into a final state also files the item in a sparse "unpublished" index entry
 * (`index`), which stamping the event later removes. Returns the new item, or undefined when the state was not in
 * `from` (nothing changed).
 */
export async function transitionItem<T>(
  db: DynamoDBDocumentClient,
  tableName: string,
  key: Record<string, string>,
  change: { from: string[]; to: string; fields: Record<string, unknown>; index?: { GSI1PK: string; GSI1SK: string } },
): Promise<T | undefined> {
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = { ':to': change.to };
  const sets = ['#status = :to'];
  for (const [field, value] of Object.entries({ ...change.fields, ...change.index })) {
    if (value === undefined) continue;
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    sets.push(`#${field} = :${field}`);
  }
  change.from.forEach((status, index) => {
    values[`:from${index}`] = status;
  });
  try {
    const result = await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: `attribute_exists(PK) AND #status IN (${change.from.map((_, index) => `:from${index}`).join(', ')})`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return withoutKeys<T>(result.Attributes ?? {});
  } catch (error) {
    if (isConditionalCheckFailed(error)) return undefined;
    throw error;
  }
}

/** Stamps a final item's event as published and takes it out of the sparse index. */
export async function markItemPublished(
  db: DynamoDBDocumentClient,
  tableName: string,
  key: Record<string, string>,
  now: string,
) {
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: key,
      UpdateExpression: 'SET publishedAt = :now REMOVE GSI1PK, GSI1SK',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':now': now },
    }),
  );
}

/** The first `limit` items of a sparse GSI1 partition (the sweepers' work lists), oldest first. */
export async function sparseIndexItems<T>(
  db: DynamoDBDocumentClient,
  tableName: string,
  partition: string,
  limit: number,
): Promise<T[]> {
  const { items } = await dueListItems(db, tableName, {
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': partition },
    Limit: limit,
  });
  return items.map((item) => withoutKeys<T>(item));
}

/**
 * A due list's items (CONTRACT §25): the list is a global index partition, which the function's own role may query
 * for the keys alone (its grant names the key attributes: `dynamodb:Attributes`); each item is then read whole with
 * its organisation's credentials, found from its partition key. An item that left the list in between is left out.
 */
export async function dueListItems(
  db: DynamoDBDocumentClient,
  tableName: string,
  query: Omit<QueryCommandInput, 'TableName' | 'ProjectionExpression' | 'IndexName'> & { IndexName: 'GSI1' | 'GSI2' },
): Promise<{ items: Record<string, unknown>[]; lastEvaluatedKey?: Record<string, unknown> }> {
  const index = query.IndexName;
  const page = await indexKeys(db, tableName, query);
  const keys = page.Items ?? [];
  const items: Record<string, unknown>[] = [];
  for (let start = 0; start < keys.length; start += 10) {
    const read = await Promise.all(
      keys.slice(start, start + 10).map(async (key) => {
        const orgId = organisationOfPartition(key.PK);
        const get = () =>
          db.send(new GetCommand({ TableName: tableName, Key: { PK: key.PK, SK: key.SK }, ConsistentRead: true }));
        const { Item } = orgId ? await actingFor(orgId, get) : await get();
        return Item && Item[`${index}PK`] === key[`${index}PK`] ? Item : undefined;
      }),
    );
    items.push(...read.filter((item): item is Record<string, unknown> => item !== undefined));
  }
  return { items, lastEvaluatedKey: page.LastEvaluatedKey };
}

/** A global index partition's entries, their key attributes only, with the function's own role (CONTRACT §25). */
export function indexKeys(
  db: DynamoDBDocumentClient,
  tableName: string,
  query: Omit<QueryCommandInput, 'TableName' | 'ProjectionExpression' | 'IndexName'> & { IndexName: 'GSI1' | 'GSI2' },
) {
  const index = query.IndexName;
  return asService(() =>
    db.send(
      new QueryCommand({ ...query, TableName: tableName, ProjectionExpression: `PK, SK, ${index}PK, ${index}SK` }),
    ),
  );
}
