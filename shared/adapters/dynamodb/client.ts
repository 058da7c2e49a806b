import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export function createDocumentClient(options: {
  region: string;
  endpoint?: string;
  /** Fixed credentials, for the local stack's dynalite (which accepts any signature). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region: options.region,
    endpoint: options.endpoint,
    credentials: options.credentials,
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000 },
  });
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
}

export const isConditionalCheckFailed = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';
