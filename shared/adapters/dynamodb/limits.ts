import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { epochSeconds } from '#shared/ports/clock';
import type { IdempotencyClaim, IdempotencyStore, RateLimiter, StoredResponse } from '#shared/ports/idempotency-store';
import { applied, isConditionalCheckFailed } from './client.ts';
import { limitKeys, RATE_SCOPES, type RateScope } from './keys.ts';
import { type LeaseGrant, RateAllowance } from './rate-allowance.ts';

/** Idempotency keys and rate windows. Expiry is decided from stored timestamps; `ttl` only cleans up. */
export class DynamoLimits implements IdempotencyStore, RateLimiter {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async claim(
    orgId: string,
    key: string,
    fingerprint: string,
    now: Date,
    inFlightSeconds: number,
    keepSeconds: number,
    candidateId: string,
  ): Promise<IdempotencyClaim> {
    const nowMs = now.getTime();
    const marker = {
      ':inProgress': 'IN_PROGRESS',
      ':fingerprint': fingerprint,
      ':locked': nowMs + inFlightSeconds * 1000,
      ':expires': nowMs + keepSeconds * 1000,
      ':ttl': epochSeconds(now) + keepSeconds,
      ':now': nowMs,
    };
    // A new key, or one whose answer was forgotten: a fresh record reserving the candidate id.
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...limitKeys.idempotency(orgId, key),
            entity: 'IDEMPOTENCY',
            state: 'IN_PROGRESS',
            fingerprint,
            lockedUntilMs: marker[':locked'],
            expiresAtMs: marker[':expires'],
            ttl: marker[':ttl'],
            reserved: { [fingerprint]: candidateId },
          },
          ConditionExpression: 'attribute_not_exists(PK) OR expiresAtMs <= :now',
          ExpressionAttributeValues: { ':now': nowMs },
        }),
      );
      return { outcome: 'claimed', reservedId: candidateId };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
    // A freed key, or one whose call in flight was abandoned: claimed again, under the id reserved for this body.
    try {
      const result = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: limitKeys.idempotency(orgId, key),
          UpdateExpression:
            'SET #state = :inProgress, fingerprint = :fingerprint, lockedUntilMs = :locked, expiresAtMs = :expires, #ttl = :ttl, reserved.#body = if_not_exists(reserved.#body, :candidate)',
          ConditionExpression: '#state = :free OR (#state = :inProgress AND lockedUntilMs <= :now)',
          ExpressionAttributeNames: { '#state': 'state', '#ttl': 'ttl', '#body': fingerprint },
          ExpressionAttributeValues: { ...marker, ':free': 'FREE', ':candidate': candidateId },
          ReturnValues: 'ALL_NEW',
        }),
      );
      const reserved = (result.Attributes?.reserved ?? {}) as Record<string, string>;
      return { outcome: 'claimed', reservedId: reserved[fingerprint] ?? candidateId };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
    const result = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: limitKeys.idempotency(orgId, key), ConsistentRead: true }),
    );
    const item = result.Item;
    if (!item) return this.claim(orgId, key, fingerprint, now, inFlightSeconds, keepSeconds, candidateId);
    if (item.state === 'COMPLETED') {
      return {
        outcome: 'completed',
        fingerprint: item.fingerprint,
        response: JSON.parse(item.response) as StoredResponse,
      };
    }
    return { outcome: 'in-progress', fingerprint: item.fingerprint };
  }

  async complete(
    orgId: string,
    key: string,
    fingerprint: string,
    response: StoredResponse,
    now: Date,
    keepSeconds: number,
  ) {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: limitKeys.idempotency(orgId, key),
        UpdateExpression: 'SET #state = :completed, #response = :response, expiresAtMs = :expires, #ttl = :ttl',
        ConditionExpression: 'fingerprint = :fingerprint',
        ExpressionAttributeNames: { '#state': 'state', '#response': 'response', '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':completed': 'COMPLETED',
          ':response': JSON.stringify(response),
          ':expires': now.getTime() + keepSeconds * 1000,
          ':ttl': epochSeconds(now) + keepSeconds,
          ':fingerprint': fingerprint,
        },
      }),
    );
  }

  async release(orgId: string, key: string, fingerprint: string): Promise<void> {
    await applied(
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: limitKeys.idempotency(orgId, key),
          UpdateExpression: 'SET #state = :free REMOVE lockedUntilMs',
          ConditionExpression: '#state = :inProgress AND fingerprint = :fingerprint',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':inProgress': 'IN_PROGRESS', ':free': 'FREE', ':fingerprint': fingerprint },
        }),
      ),
    );
  }

  /**
   * Counts `cost` units (RateAllowance): exactly, one conditional write per request, for a limit of at most
   * EXACT_LIMIT_MAX; else from this container's lease of the window, one write per lease and none per refusal once the
   * window is full. Never more than `limit` in a window across containers.
   */
  take(scope: string, orgId: string, limit: number, windowSeconds: number, now: Date, cost = 1) {
    return this.#allowance.take(knownScope(scope), orgId, limit, windowSeconds, now, cost);
  }

  /**
   * Takes back units counted at `takenAt` (a refusal before the limits is not counted): from the shared counter for an
   * exact limit, else into this container's lease (no write).
   */
  refund(scope: string, orgId: string, limit: number, windowSeconds: number, takenAt: Date, cost = 1): Promise<void> {
    return this.#allowance.refund(knownScope(scope), orgId, limit, windowSeconds, takenAt, cost);
  }

  readonly #allowance = new RateAllowance({
    lease: (scope, orgId, limit, windowSeconds, windowStart, want, newHolder) =>
      this.leaseUnits(knownScope(scope), orgId, limit, windowSeconds, windowStart, want, newHolder),
    count: async (scope, orgId, limit, windowSeconds, windowStart, units) =>
      (await this.#add(knownScope(scope), orgId, limit, windowSeconds, windowStart, units, false)) !== undefined,
    uncount: (scope, orgId, windowStart, units) => this.#uncount(knownScope(scope), orgId, windowStart, units),
  });

  /**
   * Adds up to `want` units to the window's shared counter without passing `limit`: one conditional ADD when they
   * fit; when they do not, one consistent read of the counter and the ADD of what is left (a few rounds at most, if
   * other containers lease at the same moment). Returns the units added and the counter as the write left it.
   */
  async leaseUnits(
    scope: RateScope,
    orgId: string,
    limit: number,
    windowSeconds: number,
    windowStart: number,
    want: number,
    newHolder = false,
  ): Promise<LeaseGrant> {
    let ask = Math.min(want, limit);
    let seen = { hits: 0, holders: 1 };
    for (let round = 0; round < 5 && ask > 0; round++) {
      const after = await this.#add(scope, orgId, limit, windowSeconds, windowStart, ask, newHolder);
      if (after) return { granted: ask, room: limit - after.hits, holders: after.holders };
      const counter = await this.db.send(
        new GetCommand({
          TableName: this.tableName,
          Key: limitKeys.rateWindow(scope, orgId, windowStart),
          ConsistentRead: true,
          ProjectionExpression: 'hits, holders',
        }),
      );
      seen = { hits: Number(counter.Item?.hits ?? 0), holders: Number(counter.Item?.holders ?? 1) };
      ask = Math.min(ask, limit - seen.hits);
    }
    return { granted: 0, room: Math.max(0, limit - seen.hits), holders: seen.holders };
  }

  /**
   * One conditional ADD of `units` to a window's counter (and of the container to its lease holders, when new): the
   * counter after it, or undefined (nothing added) when they would pass `limit`.
   */
  async #add(
    scope: RateScope,
    orgId: string,
    limit: number,
    windowSeconds: number,
    windowStart: number,
    units: number,
    newHolder: boolean,
  ): Promise<{ hits: number; holders: number } | undefined> {
    try {
      const result = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: limitKeys.rateWindow(scope, orgId, windowStart),
          UpdateExpression: newHolder
            ? 'ADD hits :units, holders :one SET #ttl = :ttl'
            : 'ADD hits :units SET #ttl = :ttl',
          ConditionExpression: 'attribute_not_exists(hits) OR hits <= :room',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':units': units,
            ':room': limit - units,
            ':ttl': windowStart + windowSeconds * 2,
            ...(newHolder ? { ':one': 1 } : {}),
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { hits: Number(result.Attributes?.hits ?? units), holders: Number(result.Attributes?.holders ?? 1) };
    } catch (error) {
      if (isConditionalCheckFailed(error)) return undefined;
      throw error;
    }
  }

  /** Takes `units` back from a window's counter; a counter that holds fewer (or is gone) is left as it is. */
  async #uncount(scope: RateScope, orgId: string, windowStart: number, units: number): Promise<void> {
    await applied(
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: limitKeys.rateWindow(scope, orgId, windowStart),
          UpdateExpression: 'ADD hits :minus',
          ConditionExpression: 'hits >= :units',
          ExpressionAttributeValues: { ':minus': -units, ':units': units },
        }),
      ),
    );
  }
}

/** A scope of RATE_SCOPES, or an error: a window under any other scope would be out of the erasure's reach. */
function knownScope(scope: string): RateScope {
  if (!(RATE_SCOPES as readonly string[]).includes(scope))
    throw new Error(`unknown rate scope ${scope}: add it to RATE_SCOPES`);
  return scope as RateScope;
}
