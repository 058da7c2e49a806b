import { DynamoPoolLeases } from '#shared/adapters/dynamodb/pool-leases';
import { QUEUES } from '#shared/events/catalog';
import { OrgShares } from '#shared/queue/org-share';
import { config } from './core.ts';
import { documentClient } from './dynamodb.ts';
import { instance } from './instances.ts';

export function poolLeases(): DynamoPoolLeases {
  return instance(poolLeases, () => new DynamoPoolLeases(documentClient(), config().aws.tableName));
}

/** One getter per queue, so that each queue's shares are one instance of the process (reset with the others). */
const getters = new Map<string, () => OrgShares | undefined>();

/** The organisations' shares of the queue's consumer pool, per process; undefined for a queue without one. */
export function orgShares(queue: string): OrgShares | undefined {
  let getter = getters.get(queue);
  if (!getter) {
    getter = () => {
      const poolSize = config().poolSizes[queue];
      const shared = QUEUES.some((def) => def.name === queue && def.orgShare);
      return shared && poolSize !== undefined ? new OrgShares(queue, poolSize, poolLeases()) : undefined;
    };
    getters.set(queue, getter);
  }
  return instance(getter, getter);
}
