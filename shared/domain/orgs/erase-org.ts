import type { Clock } from '#shared/ports/clock';
import type { OrgEraseStore, OrgFiles, OrgItem, OrgSecrets } from '#shared/ports/org-admin-store';
import { OrgNotFoundError } from './administer.ts';

export interface EraseOrgDeps {
  clock: Clock;
  store: OrgEraseStore;
  files: OrgFiles;
  /** Only where channel tokens live outside the table (AWS). */
  secrets?: OrgSecrets;
}

/** Every file of an organisation is under this prefix (report CSVs: reportObjectKey). */
export const orgFilesPrefix = (orgId: string) => `org/${orgId}/`;

/**
 * Erases an organisation (CONTRACT §17, `org delete`). Resumable: every step only deletes, and the items that name
 * what the others are found by go last, so a second run after an interruption finds whatever is left and goes on.
 * 1. Mark it deleting: its tokens are refused and its queued work waits from here on.
 * 2. Delete its files (report CSVs) in the bucket.
 * 3. Delete every item the organisation owns, found from its own keys (OrgEraseStore.findItems): records, chats,
 *    messages, receipts, groups, requests, reports, subscriptions with their sealed secrets, deliveries, the network
 *    links its items name, events, idempotency keys and rate windows — never another organisation's, whatever its
 *    items' text says.
 * 4. Delete its channels (and their token secrets where those live outside the table), then its credentials with
 *    their attempt counters, the pointers to them, then the status copy and the organisation itself.
 * Returns what this run erased, per kind.
 */
export async function eraseOrg(deps: EraseOrgDeps, input: { orgId: string }) {
  if (!(await deps.store.markDeleting(input.orgId, deps.clock.now().toISOString()))) {
    throw new OrgNotFoundError(input.orgId);
  }
  const erased: Record<string, number> = {};
  const count = (items: OrgItem[]) => {
    for (const item of items) erased[item.kind] = (erased[item.kind] ?? 0) + 1;
  };

  for (const key of await deps.files.list(orgFilesPrefix(input.orgId))) {
    await deps.files.delete(key);
    erased.reportFiles = (erased.reportFiles ?? 0) + 1;
  }

  await deps.store.findItems(input.orgId, async (items) => {
    await deps.store.deleteItems(items.map((item) => item.key));
    count(items);
  });
  const defining = await deps.store.definingItems(input.orgId);

  for (const channel of defining.channels) {
    if (channel.secretId && deps.secrets) {
      await deps.secrets.delete(channel.secretId);
      erased.channelSecrets = (erased.channelSecrets ?? 0) + 1;
    }
  }
  for (const group of [defining.channels, defining.credentials, defining.credentialPointers, defining.org]) {
    await deps.store.deleteItems(group.map((item) => item.key));
    count(group.filter((item) => !['loginAttempts', 'orgStatus', 'credentialPointers'].includes(item.kind)));
  }
  return { orgId: input.orgId, erased };
}
