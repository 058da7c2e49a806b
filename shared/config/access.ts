import { DynamoAccessStatusStore } from '#shared/adapters/dynamodb/access-status-store';
import { AccessStatusCache } from '#shared/domain/auth/access-status';
import { config } from './core.ts';
import { documentClient } from './dynamodb.ts';
import { instance } from './instances.ts';

export function accessStatusStore(): DynamoAccessStatusStore {
  return instance(accessStatusStore, () => new DynamoAccessStatusStore(documentClient(), config().aws.tableName));
}

/** What token checks and workers read (CONTRACT §17): credentials cached per process, organisation statuses never. */
export function accessStatus(): AccessStatusCache {
  return instance(
    accessStatus,
    () => new AccessStatusCache(accessStatusStore(), config().access.statusCacheSeconds * 1000),
  );
}
