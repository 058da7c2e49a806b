import { DynamoPoolLeases } from '#shared/adapters/dynamodb/pool-leases';
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
      // The stacks tell a consumer its pool's size only where its organisations share it (infra/aws/functions.ts).
      const poolSize = config().poolSize(queue);
      return poolSize === undefined ? undefined : new OrgShares(queue, poolSize, poolLeases());
    };
    getters.set(queue, getter);
  }
  return instance(getter, getter);
}
