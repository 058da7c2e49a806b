import { describe, expect, it } from 'vitest';
import { canonicalJson, idempotent } from '#shared/domain/idempotency/idempotent';
import { DomainError } from '#shared/errors';
import type { IdempotencyClaim, IdempotencyStore, StoredResponse } from '#shared/ports/idempotency-store';

class MemoryIdempotencyStore implements IdempotencyStore {
  items = new Map<
    string,
    { fingerprint: string; state: 'IN_PROGRESS' | 'COMPLETED'; lockedUntil: number; response?: StoredResponse }
  >();

  async claim(
    orgId: string,
    key: string,
    fingerprint: string,
    now: Date,
    inFlightSeconds: number,
  ): Promise<IdempotencyClaim> {
    const id = `${orgId}/${key}`;
    const item = this.items.get(id);
    if (!item || (item.state === 'IN_PROGRESS' && item.lockedUntil <= now.getTime())) {
      this.items.set(id, { fingerprint, state: 'IN_PROGRESS', lockedUntil: now.getTime() + inFlightSeconds * 1000 });
      return { outcome: 'claimed' };
    }
    return item.state === 'COMPLETED'
      ? { outcome: 'completed', fingerprint: item.fingerprint, response: item.response! }
      : { outcome: 'in-progress', fingerprint: item.fingerprint };
  }

  async complete(orgId: string, key: string, fingerprint: string, response: StoredResponse) {
    this.items.set(`${orgId}/${key}`, { fingerprint, state: 'COMPLETED', lockedUntil: 0, response });
  }

  async release(orgId: string, key: string) {
    this.items.delete(`${orgId}/${key}`);
  }
}

const clock = { now: () => new Date('2026-11-22T10:00:00Z') };
const accepted = (id: string): StoredResponse => ({ statusCode: 202, body: { id }, headers: {} });

describe('idempotent', () => {
  it('replays the first answer for the same key and a deep-equal body, without running the action again', async () => {
    const limits = new MemoryIdempotencyStore();
    let runs = 0;
    const action = async () => accepted(`r${++runs}`);

    const first = await idempotent(
      { clock, limits },
      { orgId: 'o', key: 'k', operation: 'op', body: { a: 1, b: [1, 2] } },
      action,
    );
    const second = await idempotent(
      { clock, limits },
      { orgId: 'o', key: 'k', operation: 'op', body: { b: [1, 2], a: 1 } },
      action,
    );

    expect(runs).toBe(1);
    expect(second).toEqual({ response: first.response, replayed: true });
  });

  it('refuses the same key with another body (422) and while the first call runs (409)', async () => {
    const limits = new MemoryIdempotencyStore();
    await idempotent({ clock, limits }, { orgId: 'o', key: 'k', operation: 'op', body: { a: 1 } }, async () =>
      accepted('x'),
    );
    let release: () => void = () => undefined;
    const slow = idempotent(
      { clock, limits },
      { orgId: 'o', key: 'slow', operation: 'op', body: {} },
      () =>
        new Promise<StoredResponse>((resolve) => {
          release = () => resolve(accepted('y'));
        }),
    );

    const reused = idempotent({ clock, limits }, { orgId: 'o', key: 'k', operation: 'op', body: { a: 2 } }, async () =>
      accepted('z'),
    );
    const inFlight = idempotent({ clock, limits }, { orgId: 'o', key: 'slow', operation: 'op', body: {} }, async () =>
      accepted('z'),
    );

    await expect(reused).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    await expect(inFlight).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE' });
    release();
    await slow;
  });

  it('frees the key when the first call failed, so a retry runs', async () => {
    const limits = new MemoryIdempotencyStore();
    const failing = idempotent({ clock, limits }, { orgId: 'o', key: 'k', operation: 'op', body: {} }, async () => {
      throw new DomainError('CHANNEL_NOT_FOUND', 'no');
    });
    await expect(failing).rejects.toBeInstanceOf(DomainError);

    const retry = await idempotent({ clock, limits }, { orgId: 'o', key: 'k', operation: 'op', body: {} }, async () =>
      accepted('ok'),
    );

    expect(retry.replayed).toBe(false);
  });

  it('scopes keys by organisation (D-4)', async () => {
    const limits = new MemoryIdempotencyStore();
    await idempotent({ clock, limits }, { orgId: 'a', key: 'k', operation: 'op', body: {} }, async () => accepted('a'));

    const other = await idempotent({ clock, limits }, { orgId: 'b', key: 'k', operation: 'op', body: {} }, async () =>
      accepted('b'),
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
