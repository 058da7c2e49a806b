import type { NetworkUpdateDeps } from '#shared/domain/chats/network-updates';
import type { ApplyGroupCreateDeps } from '#shared/domain/groups/apply-group-create';
import type { GroupLifecycleDeps } from '#shared/domain/groups/apply-group-lifecycle';
import type { ChannelStore } from '#shared/ports/identity-store';
import type { JobQueue } from '#shared/ports/job-queue';
import { NETWORK_NOTIFICATIONS_QUEUE } from '#shared/ports/notification-inbox';
import { applyNetworkNotification } from './apply-notification.ts';

/** A notification as the webhook kept it: whose it is, nobody knows yet. */
export interface InboxNotification {
  kind: 'notification';
  /** When the webhook received it (ISO 8601): the time of an item that has none of its own (CONTRACT §16). */
  receivedAt?: string;
  notification: unknown;
}

/** The changes of a notification that belong to one organisation, in that organisation's message group. */
export interface OrganisationNotification {
  kind: 'org-notification';
  orgId: string;
  receivedAt?: string;
  notification: unknown;
}

export type InboxMessage = InboxNotification | OrganisationNotification;

export type ApplyInboxDeps = ApplyGroupCreateDeps &
  NetworkUpdateDeps &
  GroupLifecycleDeps & {
    identity: ChannelStore;
    queue: Pick<JobQueue, 'send'>;
  };

/** One change under its entry's other fields, or an entry without a list of changes, as it came. */
type Part = { entry: Record<string, unknown>; change: unknown } | { raw: unknown };

/**
 * The worker behind the network webhook (CONTRACT §21), in two steps on one queue:
 * 1. A kept notification is sorted: each change's business number (`value.metadata.phone_number_id`, text or
 *    number) names its channel and so its organisation; the changes of each organisation are forwarded as one
 *    notification in that organisation's message group, so applying them is fair per organisation (SQS fair
 *    queues), and a suspended organisation's wait (shared/queue/consumer.ts). Changes of no known number (another
 *    business's, unreadable ones, fields the service does not keep) belong to no organisation: they are applied at
 *    once, which finds nothing to change for them and reports what it cannot read.
 * 2. An organisation's notification is applied (apply-notification.ts): every step idempotent, so a duplicate
 *    message or a replay changes nothing. The time the webhook received it travels with it, so every retry reads an
 *    item without a time of its own as of the same instant.
 */
export async function applyInboxMessage(deps: ApplyInboxDeps, message: InboxMessage): Promise<void> {
  const receivedAt = receivedAtOf(message.receivedAt, deps.clock.now());
  if (message.kind === 'org-notification') return applyNetworkNotification(deps, message.notification, receivedAt);
  const notification = message.notification;
  const entries = (notification as { entry?: unknown } | null)?.entry;
  if (!Array.isArray(entries)) return applyNetworkNotification(deps, notification, receivedAt);

  const channels = new Map<string, Promise<string | undefined>>();
  const orgOfNumber = (phoneNumberId: string) => {
    let orgId = channels.get(phoneNumberId);
    if (!orgId) {
      orgId = deps.identity.findOrgByPhoneNumberId(phoneNumberId);
      channels.set(phoneNumberId, orgId);
    }
    return orgId;
  };
  const byOrganisation = new Map<string, Part[]>();
  const unowned: Part[] = [];
  for (const rawEntry of entries) {
    const { changes, ...entry } = (rawEntry !== null && typeof rawEntry === 'object' ? rawEntry : {}) as {
      changes?: unknown;
    } & Record<string, unknown>;
    if (!Array.isArray(changes)) {
      unowned.push({ raw: rawEntry });
      continue;
    }
    for (const change of changes) {
      const number = phoneNumberIdOf(change);
      const orgId = number === undefined ? undefined : await orgOfNumber(number);
      if (orgId === undefined) unowned.push({ entry, change });
      else byOrganisation.set(orgId, [...(byOrganisation.get(orgId) ?? []), { entry, change }]);
    }
  }
  const { entry: _entries, ...envelope } = notification as Record<string, unknown>;
  for (const [orgId, parts] of byOrganisation) {
    const job: OrganisationNotification = {
      kind: 'org-notification',
      orgId,
      receivedAt: receivedAt.toISOString(),
      notification: rebuild(envelope, parts),
    };
    await deps.queue.send(NETWORK_NOTIFICATIONS_QUEUE, job);
  }
  if (unowned.length > 0) await applyNetworkNotification(deps, rebuild(envelope, unowned), receivedAt);
}

/** The time the webhook kept a notification; one kept before it recorded that is taken as received now. */
function receivedAtOf(value: string | undefined, now: Date): Date {
  const at = value === undefined ? Number.NaN : Date.parse(value);
  return Number.isNaN(at) ? now : new Date(at);
}

/** `value.metadata.phone_number_id` of a change, as text (Meta writes ids as strings or as numbers). */
function phoneNumberIdOf(change: unknown): string | undefined {
  const id = (change as { value?: { metadata?: { phone_number_id?: unknown } } } | null)?.value?.metadata
    ?.phone_number_id;
  if (typeof id === 'string' && id !== '') return id;
  if (typeof id === 'number' && Number.isSafeInteger(id)) return String(id);
  return undefined;
}

/** A notification of `parts`, each change under a copy of its own entry, entries in their first order. */
function rebuild(envelope: Record<string, unknown>, parts: Part[]): unknown {
  const entries = new Map<unknown, unknown[] | undefined>();
  for (const part of parts) {
    if ('raw' in part) {
      entries.set(part.raw, undefined);
      continue;
    }
    entries.set(part.entry, [...(entries.get(part.entry) ?? []), part.change]);
  }
  return {
    ...envelope,
    entry: [...entries].map(([entry, changes]) =>
      changes === undefined ? entry : { ...(entry as Record<string, unknown>), changes },
    ),
  };
}
