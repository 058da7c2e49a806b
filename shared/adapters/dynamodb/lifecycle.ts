import { type DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { asService } from '#shared/adapters/aws/tenant-scope';
import { isConditionalCheckFailed } from './client.ts';
import { withoutKeys } from './keys.ts';

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
  // A due list is a global partition: the function's own role reads it (CONTRACT §25).
  const result = await asService(() =>
    db.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk',
        ExpressionAttributeValues: { ':pk': partition },
        Limit: limit,
      }),
    ),
  );
  return (result.Items ?? []).map((item) => withoutKeys<T>(item));
}
