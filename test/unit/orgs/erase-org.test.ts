import { describe, expect, it } from 'vitest';
import { eraseOrg } from '#shared/domain/orgs/erase-org';
import type { OrgEraseStore, OrgFiles, OrgItem, OrgSecrets } from '#shared/ports/org-admin-store';

const ORG = '5d6e7f80-1a2b-4c3d-8e9f-0a1b2c3d4e5f';

/**
 * An organisation as the erasure's ports see it, with the table's one rule that matters here: an item is found only
 * through the item that names it (a chat's messages through the chat, a subscription's deliveries through it,
 * credentials through the pointers, everything through the organisation's id).
 */
function world() {
  const items = new Map<string, { kind: string; parent?: string; secretId?: string }>();
  const put = (key: string, kind: string, extra: { parent?: string; secretId?: string } = {}) =>
    items.set(key, { kind, ...extra });
  const state = {
    items,
    files: new Set([`org/${ORG}/reports/rpt_1.csv`, `org/${ORG}/reports/rpt_2.csv`]),
    secrets: new Set(['wp-crm/dev/channels/ch_1']),
    statusCopy: { status: 'active', deletingAt: undefined as string | undefined } as
      | { status: string; deletingAt?: string }
      | undefined,
    put,
  };
  put('org', 'organisation');
  put('chat#c1', 'chats');
  for (const n of [1, 2, 3]) put(`msg#c1#${n}`, 'messages', { parent: 'chat#c1' });
  put('whk#w1', 'subscriptions');
  for (const n of [1, 2]) put(`dlv#w1#${n}`, 'deliveries', { parent: 'whk#w1' });
  for (const n of [1, 2]) put(`rec#${n}`, 'records');
  put('idem#k1', 'idempotencyKeys');
  put('channel#ch_1', 'channels', { secretId: 'wp-crm/dev/channels/ch_1' });
  put('ptr#cli_1', 'credentialPointers');
  put('client#cli_1', 'credentials', { parent: 'ptr#cli_1' });
  put('client#cli_1#attempts', 'loginAttempts', { parent: 'ptr#cli_1' });
  return state;
}

type World = ReturnType<typeof world>;

const item = (w: World, key: string): OrgItem => ({ key: { key }, kind: w.items.get(key)!.kind });
const keysOf = (w: World, test: (key: string, value: { kind: string; parent?: string }) => boolean) =>
  [...w.items].filter(([key, value]) => test(key, value)).map(([key]) => key);

function ports(w: World, crashAt = Number.POSITIVE_INFINITY) {
  let calls = 0;
  const step = () => {
    calls += 1;
    if (calls === crashAt) throw new Error(`crash at call ${calls}`);
  };
  const store: OrgEraseStore = {
    async markDeleting(_orgId, at) {
      step();
      if (!w.statusCopy && !w.items.has('org')) return undefined;
      w.statusCopy = { status: 'deleting', deletingAt: w.statusCopy?.deletingAt ?? at };
      return w.statusCopy.deletingAt;
    },
    async findItems(_orgId, onPage) {
      step();
      // Children first, each page before the items that name it; what a parent no longer names is not found.
      for (const parent of keysOf(w, (key) => key.startsWith('chat#') || key.startsWith('whk#'))) {
        const children = keysOf(w, (_key, value) => value.parent === parent);
        if (children.length > 0) await onPage(children.map((key) => item(w, key)));
        await onPage([item(w, parent)]);
      }
      const rest = keysOf(w, (key) => key.startsWith('rec#') || key.startsWith('idem#'));
      if (rest.length > 0) await onPage(rest.map((key) => item(w, key)));
    },
    async definingItems() {
      step();
      const pointers = keysOf(w, (key) => key.startsWith('ptr#'));
      const credentials = keysOf(w, (_key, value) => pointers.includes(value.parent ?? ''));
      const channels = keysOf(w, (key) => key.startsWith('channel#'));
      return {
        credentials: credentials.map((key) => item(w, key)),
        credentialPointers: pointers.map((key) => item(w, key)),
        channels: channels.map((key) => ({ ...item(w, key), secretId: w.items.get(key)!.secretId })),
        org: w.items.has('org') ? [item(w, 'org')] : [],
      };
    },
    async deleteItems(keys) {
      step();
      for (const { key } of keys as { key: string }[]) w.items.delete(key);
    },
    async deleteStatusCopy() {
      step();
      w.statusCopy = undefined;
    },
  };
  const files: OrgFiles = {
    async list(prefix) {
      step();
      return [...w.files].filter((key) => key.startsWith(prefix));
    },
    async delete(key) {
      step();
      w.files.delete(key);
    },
  };
  const secrets: OrgSecrets = {
    async delete(secretId) {
      step();
      w.secrets.delete(secretId);
    },
  };
  return { store, files, secrets, calls: () => calls };
}

function deps(w: World, options: { crashAt?: number; nowMs?: () => number } = {}) {
  const waits: number[] = [];
  const progress: Record<string, unknown>[] = [];
  const { store, files, secrets, calls } = ports(w, options.crashAt);
  const nowMs = options.nowMs ?? (() => Date.parse('2026-11-22T10:00:00Z'));
  return {
    deps: {
      clock: { now: () => new Date(nowMs()) },
      store,
      files,
      secrets,
      drainSeconds: 60,
      sleep: async (ms: number) => void waits.push(ms),
      progress: (event: Record<string, unknown>) => void progress.push(event),
    },
    waits,
    progress,
    calls,
  };
}

const emptied = (w: World) => ({
  items: [...w.items.keys()],
  files: [...w.files],
  secrets: [...w.secrets],
  statusCopy: w.statusCopy,
});
const NOTHING = { items: [], files: [], secrets: [], statusCopy: undefined };

describe('eraseOrg (CONTRACT §17)', () => {
  it('refuses first, waits out the drain, erases everything in passes and drops the status copy last', async () => {
    const w = world();
    const order: string[] = [];
    const run = deps(w);
    const { store } = run.deps;
    const traced: OrgEraseStore = {
      ...store,
      markDeleting: async (orgId, at) => {
        order.push('markDeleting');
        return store.markDeleting(orgId, at);
      },
      deleteStatusCopy: async (orgId) => {
        order.push(`deleteStatusCopy with ${w.items.size} items left`);
        return store.deleteStatusCopy(orgId);
      },
    };

    const result = await eraseOrg(
      { ...run.deps, store: traced, sleep: async (ms) => void order.push(`wait ${ms}`) },
      {
        orgId: ORG,
      },
    );

    expect(order).toEqual(['markDeleting', 'wait 60000', 'deleteStatusCopy with 0 items left']);
    expect(emptied(w)).toEqual(NOTHING);
    expect(result).toEqual({
      orgId: ORG,
      erased: {
        reportFiles: 2,
        messages: 3,
        chats: 1,
        deliveries: 2,
        subscriptions: 1,
        records: 2,
        idempotencyKeys: 1,
        channelSecrets: 1,
        channels: 1,
        credentials: 1,
        organisation: 1,
      },
    });
  });

  it('finishes the job when run again after a crash at any step, waiting only what is left of the drain', async () => {
    const full = deps(world());
    await eraseOrg(full.deps, { orgId: ORG });
    const steps = full.calls();
    expect(steps).toBeGreaterThan(15);

    for (let crashAt = 1; crashAt <= steps; crashAt += 1) {
      const w = world();
      let nowMs = Date.parse('2026-11-22T10:00:00Z');
      const crashed = deps(w, { crashAt, nowMs: () => nowMs });
      await expect(eraseOrg(crashed.deps, { orgId: ORG }), `crash at step ${crashAt}`).rejects.toThrow('crash');
      nowMs += 45_000;
      const rerun = deps(w, { nowMs: () => nowMs });

      await eraseOrg(rerun.deps, { orgId: ORG });

      expect(emptied(w), `crash at step ${crashAt}`).toEqual(NOTHING);
      // The drain is counted from the first run's first step: 60 s then, so 15 s are left 45 s later (none after a
      // crash at the first step itself, which marked nothing; none once the copy is gone with everything else).
      expect(
        rerun.waits.every((ms) => ms === 15_000 || ms === 60_000),
        `crash at step ${crashAt}`,
      ).toBe(true);
      if (crashAt > 1 && crashAt < steps) expect(rerun.waits, `crash at step ${crashAt}`).toEqual([15_000]);
    }
  });

  it('sweeps again: an item written while the first pass ran is found and erased by the next', async () => {
    const w = world();
    const run = deps(w);
    const { store } = run.deps;
    let late = true;
    const racing: OrgEraseStore = {
      ...store,
      deleteItems: async (keys) => {
        await store.deleteItems(keys);
        if (late && (keys as { key: string }[]).some(({ key }) => key === 'org')) {
          late = false;
          w.put('rec#late', 'records');
          w.files.add(`org/${ORG}/reports/rpt_late.csv`);
        }
      },
    };

    const result = await eraseOrg({ ...run.deps, store: racing }, { orgId: ORG });

    expect(emptied(w)).toEqual(NOTHING);
    expect(result.erased).toMatchObject({ records: 3, reportFiles: 3 });
  });

  it('gives up for now, the organisation still refused, while writes keep arriving pass after pass', async () => {
    const w = world();
    const run = deps(w);
    const { store } = run.deps;
    let n = 0;
    const flooded: OrgEraseStore = {
      ...store,
      deleteItems: async (keys) => {
        await store.deleteItems(keys);
        n += 1;
        w.put(`rec#flood${n}`, 'records');
      },
    };

    await expect(eraseOrg({ ...run.deps, store: flooded }, { orgId: ORG })).rejects.toThrow(/run org delete again/);

    expect(w.statusCopy).toMatchObject({ status: 'deleting' });
  });

  it('finds and erases a remainder when the organisation and its status copy are gone, without waiting', async () => {
    const w = world();
    w.items.clear();
    w.statusCopy = undefined;
    w.put('rec#left', 'records');
    w.files.add(`org/${ORG}/reports/rpt_left.csv`);
    const run = deps(w);

    const result = await eraseOrg(run.deps, { orgId: ORG });

    expect(result.erased).toEqual({ records: 1, reportFiles: 3 });
    expect(emptied(w)).toEqual({ ...NOTHING, secrets: ['wp-crm/dev/channels/ch_1'] });
    expect(run.waits).toEqual([]);
  });

  it('erases nothing on an id with nothing left, and says so', async () => {
    const w = world();
    w.items.clear();
    w.files.clear();
    w.statusCopy = undefined;
    const run = deps(w);

    const result = await eraseOrg(run.deps, { orgId: ORG });

    expect(result).toEqual({ orgId: ORG, erased: {} });
    expect(run.waits).toEqual([]);
    expect(run.progress).toEqual([{ nothingFound: expect.stringContaining('never existed') }]);
  });
});
