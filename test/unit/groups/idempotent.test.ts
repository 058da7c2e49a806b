import { describe, expect, it } from 'vitest';
import { canonicalJson, idempotent } from '#shared/domain/idempotency/idempotent';
import { DomainError } from '#shared/errors';
import type { IdempotencyClaim, IdempotencyStore, StoredResponse } from '#shared/ports/idempotency-store';

class MemoryIdempotencyStore implements IdempotencyStore {
  items = new Map<
    string,
    {
      fingerprint: string;
      state: 'IN_PROGRESS' | 'COMPLETED' | 'FREE';
      lockedUntil: number;
      response?: StoredResponse;
      reserved: Record<string, string>;
    }
  >();

  async claim(
    orgId: string,
    key: string,
    fingerprint: string,
    now: Date,
    inFlightSeconds: number,
    _keepSeconds: number,
    candidateId: string,
  ): Promise<IdempotencyClaim> {
    const id = `${orgId}/${key}`;
    const item = this.items.get(id);
    if (!item || item.state === 'FREE' || (item.state === 'IN_PROGRESS' && item.lockedUntil <= now.getTime())) {
      const reserved = { [fingerprint]: candidateId, ...item?.reserved };
      this.items.set(id, {
        fingerprint,
        state: 'IN_PROGRESS',
        lockedUntil: now.getTime() + inFlightSeconds * 1000,
        reserved,
      });
      return { outcome: 'claimed', reservedId: reserved[fingerprint]! };
    }
    return item.state === 'COMPLETED'
      ? { outcome: 'completed', fingerprint: item.fingerprint, response: item.response! }
      : { outcome: 'in-progress', fingerprint: item.fingerprint };
  }

  async complete(orgId: string, key: string, fingerprint: string, response: StoredResponse) {
    const item = this.items.get(`${orgId}/${key}`)!;
    this.items.set(`${orgId}/${key}`, { ...item, fingerprint, state: 'COMPLETED', lockedUntil: 0, response });
  }

  async release(orgId: string, key: string) {
    const item = this.items.get(`${orgId}/${key}`)!;
    this.items.set(`${orgId}/${key}`, { ...item, state: 'FREE' });
  }
}

const clock = { now: () => new Date('2026-11-22T10:00:00Z') };
let next = 0;
const ids = { next: (prefix: string) => `${prefix}_${++next}` };
const accepted = (id: string): StoredResponse => ({ statusCode: 202, body: { id }, headers: {} });

describe('idempotent', () => {
  it('replays the first answer for the same key and a deep-equal body, without running the action again', async () => {
    const limits = new MemoryIdempotencyStore();
    let runs = 0;
    const action = async () => accepted(`r${++runs}`);

    const first = await idempotent(
      { clock, limits, ids },
      { orgId: 'o', key: 'k', operation: 'op', body: { a: 1, b: [1, 2] }, idPrefix: 'x' },
      action,
    );
    const second = await idempotent(
      { clock, limits, ids },
      { orgId: 'o', key: 'k', operation: 'op', body: { b: [1, 2], a: 1 }, idPrefix: 'x' },
      action,
    );

    expect(runs).toBe(1);
    expect(second).toEqual({ response: first.response, replayed: true });
  });

  it('refuses the same key with another body (422) and while the first call runs (409)', async () => {
    const limits = new MemoryIdempotencyStore();
    await idempotent(
      { clock, limits, ids },
      { orgId: 'o', key: 'k', operation: 'op', body: { a: 1 }, idPrefix: 'x' },
      async () => accepted('x'),
    );
    let release: () => void = () => undefined;
    const slow = idempotent(
      { clock, limits, ids },
      { orgId: 'o', key: 'slow', operation: 'op', body: {}, idPrefix: 'x' },
      () =>
        new Promise<StoredResponse>((resolve) => {
          release = () => resolve(accepted('y'));
        }),
    );

    const reused = idempotent(
      { clock, limits, ids },
      { orgId: 'o', key: 'k', operation: 'op', body: { a: 2 }, idPrefix: 'x' },
      async () => accepted('z'),
    );
    const inFlight = idempotent(
      { clock, limits, ids },
      { orgId: 'o', key: 'slow', operation: 'op', body: {}, idPrefix: 'x' },
      async () => accepted('z'),
    );

    await expect(reused).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    await expect(inFlight).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE' });
    release();
    await slow;
  });

  it('frees the key when the first call failed, so a retry runs', async () => {
    const limits = new MemoryIdempotencyStore();
    const failing = idempotent(
      { clock, limits, ids },
      { orgId: 'o', key: 'k', operation: 'op', body: {}, idPrefix: 'x' },
      async () => {
        throw new DomainError('CHANNEL_NOT_FOUND', 'no');
      },
    );
    await expect(failing).rejects.toBeInstanceOf(DomainError);

    const retry = await idempotent(
      { clock, limits, ids },
      { orgId: 'o', key: 'k', operation: 'op', body: {}, idPrefix: 'x' },
      async () => accepted('ok'),
    );

    expect(retry.replayed).toBe(false);
  });

  it('hands a retry of a failed call the id reserved for its key and body, and another body a new one', async () => {
    const limits = new MemoryIdempotencyStore();
    const given: string[] = [];
    const request = (body: object, fail: boolean) =>
      idempotent(
        { clock, limits, ids },
        { orgId: 'o', key: 'k', operation: 'op', body, idPrefix: 'grq' },
        async (id) => {
          given.push(id);
          if (fail) throw new Error('the database went away after the write');
          return accepted(id);
        },
      );

    await expect(request({ a: 1 }, true)).rejects.toThrow();
    await request({ a: 1 }, false);
    await expect(request({ a: 2 }, true)).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });

    expect(given).toHaveLength(2);
    expect(given[1]).toBe(given[0]);
  });

  it('scopes keys by organisation (D-4)', async () => {
    const limits = new MemoryIdempotencyStore();
    await idempotent(
      { clock, limits, ids },
      { orgId: 'a', key: 'k', operation: 'op', body: {}, idPrefix: 'x' },
      async () => accepted('a'),
    );

    const other = await idempotent(
      { clock, limits, ids },
      { orgId: 'b', key: 'k', operation: 'op', body: {}, idPrefix: 'x' },
      async () => accepted('b'),
    );

    expect(other).toEqual({ response: accepted('b'), replayed: false });
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops undefined members', () => {
    expect(canonicalJson({ b: { d: 1, c: [{ f: 1, e: 2 }] }, a: undefined, z: null })).toBe(
      '{"b":{"c":[{"e":2,"f":1}],"d":1},"z":null}',
    );
  });
});
