import { DomainError } from '#shared/errors';
import type { Clock } from '#shared/ports/clock';
import type { OrgEraseStore, OrgFiles, OrgItem, OrgSecrets } from '#shared/ports/org-admin-store';

/**
 * How long `org delete` waits, by default, between its first step and its first erase: the longest a request or a
 * job that passed its check just before that step can still write — the longest function timeout (the report
 * worker's 900 s, Lambda's longest; an infra test holds every function of the template to it) and a minute more for a
 * write sent just before its function was stopped.
 */
export const DEFAULT_DRAIN_SECONDS = 900 + 60;

/** Passes that may still find something before the erasure gives up for now (writes keep arriving). */
const MAX_PASSES = 3;

export interface EraseOrgDeps {
  clock: Clock;
  store: OrgEraseStore;
  files: OrgFiles;
  /** Only where channel tokens live outside the table (AWS, start:cdk). */
  secrets?: OrgSecrets;
  /** Seconds from the first step to the first erase (DEFAULT_DRAIN_SECONDS unless the operator knows better). */
  drainSeconds: number;
  sleep?: (ms: number) => Promise<void>;
  /** What the erasure is doing, for the operator (the command line prints it on stderr). */
  progress?: (event: Record<string, unknown>) => void;
}

/** Every file of an organisation is under this prefix (report CSVs: reportObjectKey). */
export const orgFilesPrefix = (orgId: string) => `org/${orgId}/`;

/** Items that are counted under the kind they serve (a credential's counters and pointer), not on their own. */
const UNCOUNTED = new Set(['loginAttempts', 'credentialPointers']);

type Counts = Record<string, number>;

/**
 * Erases an organisation (CONTRACT §17, `org delete`) while its users and queued work may still be busy:
 * 1. Refuse: its status copy becomes `deleting`. Every token check and worker reads that copy afresh (never from a
 *    cache, shared/domain/auth/access-status.ts), so from this write on no token of it is accepted (401) and no work
 *    of it starts (a queued job is dropped, not put back).
 * 2. Drain: wait until `drainSeconds` after the first run's step 1, so that every request and job that passed its
 *    check just before has ended (a Lambda function stops at its timeout) and nothing can write for it any more.
 *    Waiting before erasing, not after, matters: an item written after its parent was erased (a delivery after its
 *    subscription, a message after its chat) could no longer be found from the organisation's keys.
 * 3. Erase, in passes, until a pass finds nothing (the second normally, a sweep for any late write): its files, every
 *    item it owns found from its own keys (OrgEraseStore.findItems, children before the items that name them), then
 *    its channels with their token secrets, credentials with their counters, the pointers to them, and itself.
 * 4. Its status copy, last: until then every check keeps refusing it.
 * Resumable at every step: each only deletes what the next run finds again by the same keys, and a run that finds
 * neither status copy nor organisation skips 1 and 2 (every check refuses it already) and sweeps. Run on an id that
 * has nothing left — erased before, or never there — it erases nothing and says so.
 * Returns what this run erased, per kind.
 */
export async function eraseOrg(deps: EraseOrgDeps, input: { orgId: string }) {
  const since = await deps.store.markDeleting(input.orgId, deps.clock.now().toISOString());
  if (since !== undefined) await drain(deps, since);
  const erased: Counts = {};
  for (let pass = 1; (await erasePass(deps, input.orgId, erased)) > 0; pass += 1) {
    if (pass === MAX_PASSES) {
      throw new DomainError(
        'INTERNAL',
        `items of organisation ${input.orgId} were still being written after ${MAX_PASSES} passes; run org delete again`,
      );
    }
  }
  await deps.store.deleteStatusCopy(input.orgId);
  if (since === undefined && Object.keys(erased).length === 0) {
    deps.progress?.({ nothingFound: `organisation ${input.orgId} was erased before, or never existed` });
  }
  return { orgId: input.orgId, erased };
}

/** Waits until `drainSeconds` after the organisation was first marked deleting (a second run waits only the rest). */
async function drain(deps: EraseOrgDeps, since: string): Promise<void> {
  const waitMs = Date.parse(since) + deps.drainSeconds * 1000 - deps.clock.now().getTime();
  if (waitMs <= 0) return;
  deps.progress?.({ draining: { seconds: Math.ceil(waitMs / 1000), since } });
  await (deps.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms))))(waitMs);
}

/** One pass over everything of the organisation; returns how many things it found (and erased). */
async function erasePass(deps: EraseOrgDeps, orgId: string, erased: Counts): Promise<number> {
  let found = 0;
  const count = (items: Pick<OrgItem, 'kind'>[]) => {
    for (const { kind } of items) {
      found += 1;
      if (!UNCOUNTED.has(kind)) erased[kind] = (erased[kind] ?? 0) + 1;
    }
  };

  for (const key of await deps.files.list(orgFilesPrefix(orgId))) {
    await deps.files.delete(key);
    count([{ kind: 'reportFiles' }]);
  }

  await deps.store.findItems(orgId, async (items) => {
    await deps.store.deleteItems(items.map((item) => item.key));
    count(items);
  });

  const defining = await deps.store.definingItems(orgId);
  for (const channel of defining.channels) {
    if (channel.secretId && deps.secrets) {
      await deps.secrets.delete(channel.secretId);
      count([{ kind: 'channelSecrets' }]);
    }
  }
  for (const group of [defining.channels, defining.credentials, defining.credentialPointers, defining.org]) {
    await deps.store.deleteItems(group.map((item) => item.key));
    count(group);
  }
  return found;
}
