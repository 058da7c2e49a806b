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
 * 3. Delete every item of the table that names the organisation, one of its client ids or one of its channel ids:
 *    records, chats, messages, groups, requests, reports, subscriptions with their sealed secrets, deliveries, links,
 *    events, idempotency keys and rate windows.
 * 4. Delete its channels (and their token secrets where those live outside the table), then its credentials with
 *    their attempt counters, then the status copy and the organisation itself.
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

  const defining = await deps.store.definingItems(input.orgId);
  const identifiers = [...new Set([...defining.credentials, ...defining.channels].map((item) => item.id!))];
  await deps.store.findItems(input.orgId, identifiers, async (items) => {
    await deps.store.deleteItems(items.map((item) => item.key));
    count(items);
  });

  for (const channel of defining.channels) {
    if (channel.secretId && deps.secrets) {
      await deps.secrets.delete(channel.secretId);
      erased.channelSecrets = (erased.channelSecrets ?? 0) + 1;
    }
  }
  for (const group of [defining.channels, defining.credentials, defining.org]) {
    await deps.store.deleteItems(group.map((item) => item.key));
    count(group.filter((item) => item.kind !== 'loginAttempts' && item.kind !== 'orgStatus'));
  }
  return { orgId: input.orgId, erased };
}
