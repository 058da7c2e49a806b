import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

export function createDocumentClient(options: {
  region: string;
  endpoint?: string;
  /** Fixed credentials (the local stack's dynalite accepts any signature), or an organisation's (CONTRACT §25). */
  credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** Another client's connections, shared: an organisation's client uses the function's pool. */
  requestHandler?: DynamoDBClientConfig['requestHandler'];
}): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region: options.region,
    endpoint: options.endpoint,
    credentials: options.credentials,
    maxAttempts: 3,
    requestHandler: options.requestHandler ?? { connectionTimeout: 1_000, requestTimeout: 5_000 },
  });
  // Every command passes the meter hook; with no meter installed it costs one comparison.
  client.middlewareStack.add(
    (next, context) => async (args) =>
      capacityMeter ? capacityMeter.measure(context.commandName ?? 'unknown', args, next) : next(args),
    { step: 'initialize', name: 'consumedCapacityMeter' },
  );
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
}

/**
 * Benchmarks measure DynamoDB cost here, in the one place every command passes: the meter asks for
 * `ReturnConsumedCapacity: 'TOTAL'` and adds up what each operation consumed (bench/capacity-meter.ts).
 */
export interface CapacityMeterHook {
  measure<T>(operation: string, args: { input: object }, next: (args: { input: object }) => Promise<T>): Promise<T>;
}

let capacityMeter: CapacityMeterHook | undefined;

/** Installs (or with undefined removes) the capacity meter of every document client in this process. */
export function meterCapacity(meter: CapacityMeterHook | undefined): void {
  capacityMeter = meter;
}

export const isConditionalCheckFailed = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';

/** Awaits a conditional write: true when it was applied, false when its condition failed and nothing changed. */
export async function applied(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}
