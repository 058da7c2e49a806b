import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PoolLease, PoolLeases } from '#shared/ports/pool-leases';
import { applied } from './client.ts';
import { poolKeys } from './keys.ts';

/** Lost races (another container took or gave back a lease between our read and write) tried again this often. */
const MAX_ROUNDS = 5;
/** The item outlives its last lease by a day, then TTL removes it (an organisation that stopped working). */
const TTL_AFTER_SECONDS = 24 * 3600;

interface LeasesItem {
  held: number;
  leases: Record<string, number>;
  /** Whether the item has its map (a store may drop a map when its last entry is removed). */
  hasMap: boolean;
}

/**
 * An organisation's leases in one pool as one item: `held` (their number) and `leases` (lease id → end, epoch ms),
 * changed together by every write, so `held` is always the size of `leases`.
 * - acquire: one UpdateItem that adds the lease and 1 to `held` on the condition `held < share` — no read on the
 *   common path, and no two containers can pass the share together. When the condition fails the item is read: leases
 *   past their end (a crashed invocation's) are taken back with a conditional write (each must still be there) and
 *   the acquire is tried again; with none ended the organisation is at its share and the answer is no.
 * - release: one UpdateItem that removes the lease and subtracts 1, on the condition that the lease is still there.
 */
export class DynamoPoolLeases implements PoolLeases {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async acquire(lease: PoolLease, options: { share: number; untilMs: number; nowMs: number }): Promise<boolean> {
    const key = poolKeys.leases(lease.orgId, lease.pool);
    const ttl = Math.ceil(options.untilMs / 1000) + TTL_AFTER_SECONDS;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const taken = await applied(
        this.db.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: key,
            UpdateExpression: 'SET leases.#lease = :until, #ttl = :ttl ADD held :one',
            ConditionExpression: 'attribute_exists(leases) AND held < :share',
            ExpressionAttributeNames: { '#lease': lease.leaseId, '#ttl': 'ttl' },
            ExpressionAttributeValues: { ':until': options.untilMs, ':ttl': ttl, ':one': 1, ':share': options.share },
          }),
        ),
      );
      if (taken) return true;
      const item = await this.#read(key);
      if (!item?.hasMap) {
        // The organisation's first lease in this pool (the item is new, or its map went with its last lease).
        const created = await applied(
          this.db.send(
            new UpdateCommand({
              TableName: this.tableName,
              Key: key,
              UpdateExpression: 'SET leases = :leases, entity = :entity, #ttl = :ttl ADD held :one',
              ConditionExpression: 'attribute_not_exists(leases) AND (attribute_not_exists(held) OR held < :share)',
              ExpressionAttributeNames: { '#ttl': 'ttl' },
              ExpressionAttributeValues: {
                ':leases': { [lease.leaseId]: options.untilMs },
                ':entity': 'POOL_LEASES',
                ':ttl': ttl,
                ':one': 1,
                ':share': options.share,
              },
            }),
          ),
        );
        if (created) return true;
        continue;
      }
      const ended = Object.entries(item.leases).filter(([, until]) => until <= options.nowMs);
      if (ended.length === 0) {
        if (item.held >= options.share) return false;
        continue; // a lease was given back between the write and the read
      }
      await this.#takeBack(
        key,
        ended.map(([id]) => id),
      );
    }
    return false;
  }

  async release(lease: PoolLease): Promise<void> {
    await applied(
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: poolKeys.leases(lease.orgId, lease.pool),
          UpdateExpression: 'REMOVE leases.#lease ADD held :minusOne',
          ConditionExpression: 'attribute_exists(leases.#lease)',
          ExpressionAttributeNames: { '#lease': lease.leaseId },
          ExpressionAttributeValues: { ':minusOne': -1 },
        }),
      ),
    );
  }

  async held(orgId: string, pool: string, nowMs: number): Promise<number> {
    const item = await this.#read(poolKeys.leases(orgId, pool));
    return item ? Object.values(item.leases).filter((until) => until > nowMs).length : 0;
  }

  /** Removes ended leases, each on the condition that it is still there (another container may have taken it back). */
  async #takeBack(key: { PK: string; SK: string }, ids: string[]): Promise<void> {
    const names = Object.fromEntries(ids.map((id, index) => [`#e${index}`, id]));
    await applied(
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: `REMOVE ${ids.map((_, index) => `leases.#e${index}`).join(', ')} ADD held :minus`,
          ConditionExpression: ids.map((_, index) => `attribute_exists(leases.#e${index})`).join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':minus': -ids.length },
        }),
      ),
    );
  }

  async #read(key: { PK: string; SK: string }): Promise<LeasesItem | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
    if (!Item) return undefined;
    const leases = Object.fromEntries(
      Object.entries((Item.leases ?? {}) as Record<string, unknown>).map(([id, until]) => [id, Number(until)]),
    );
    return { held: Number(Item.held ?? 0), leases, hasMap: Item.leases !== undefined };
  }
}
