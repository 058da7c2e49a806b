import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { epochSeconds } from '#shared/ports/clock';
import type { IdempotencyClaim, IdempotencyStore, RateLimiter, StoredResponse } from '#shared/ports/idempotency-store';
import { applied, isConditionalCheckFailed } from './client.ts';
import { limitKeys, RATE_SCOPES, type RateScope } from './keys.ts';

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

  /** One conditional ADD per request: correct under any concurrency, no read-then-write. */
  async take(scope: string, orgId: string, limit: number, windowSeconds: number, now: Date, cost = 1) {
    const nowSeconds = now.getTime() / 1000;
    const windowStart = Math.floor(nowSeconds / windowSeconds) * windowSeconds;
    const retryAfterSeconds = Math.max(1, Math.ceil(windowStart + windowSeconds - nowSeconds));
    if (cost > limit) return { allowed: false, retryAfterSeconds };
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: limitKeys.rateWindow(knownScope(scope), orgId, windowStart),
          UpdateExpression: 'ADD hits :cost SET #ttl = :ttl',
          ConditionExpression: 'attribute_not_exists(hits) OR hits <= :room',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':cost': cost, ':room': limit - cost, ':ttl': windowStart + windowSeconds * 2 },
        }),
      );
      return { allowed: true, retryAfterSeconds };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      return { allowed: false, retryAfterSeconds };
    }
  }

  async refund(scope: string, orgId: string, windowSeconds: number, takenAt: Date, cost = 1): Promise<void> {
    const windowStart = Math.floor(takenAt.getTime() / 1000 / windowSeconds) * windowSeconds;
    await applied(
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: limitKeys.rateWindow(knownScope(scope), orgId, windowStart),
          UpdateExpression: 'ADD hits :minus',
          ConditionExpression: 'hits >= :cost',
          ExpressionAttributeValues: { ':minus': -cost, ':cost': cost },
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
