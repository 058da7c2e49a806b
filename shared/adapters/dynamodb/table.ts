/**
 * The service's single DynamoDB table, defined once for the CDK stack and the local stack. Generic key names let
 * every entity share it; `adapters/dynamodb/keys.ts` is the only place that builds key values.
 */
export const TABLE_KEYS = { partitionKey: 'PK', sortKey: 'SK' } as const;

export const TABLE_INDEXES = [
  { indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
  { indexName: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK' },
] as const;

/** Epoch seconds after which DynamoDB may delete an item. Only clean-up: decisions use stored timestamps. */
export const TTL_ATTRIBUTE = 'ttl';
