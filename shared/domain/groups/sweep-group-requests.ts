import { forOrganisation } from '#shared/adapters/aws/tenant-scope';
import type { Config } from '#shared/config/env';
import type { AccessStatusCache } from '#shared/domain/auth/access-status';
import { republishRecordedEvents } from '#shared/domain/events/publish-once';
import { ChannelDisabledError, OrgGoneError, OrgSuspendedError } from '#shared/errors';
import { logger } from '#shared/observability/logger';
import type { ChannelCredentials } from '#shared/ports/channel-credentials';
import type { EventOutbox } from '#shared/ports/event-outbox';
import type { ChannelStore } from '#shared/ports/identity-store';
import type { JobQueue } from '#shared/ports/job-queue';
import { type NetworkChannel, NetworkError } from '#shared/ports/messaging-network';
import { GROUP_REQUESTS_QUEUE } from './create-group.ts';
import type { GroupRequest } from './group-request.ts';
import { announce, completeGroup, failGroup, granted, type OutcomeDeps } from './outcomes.ts';
import { CHANNEL_DISABLED, findSubmittedGroup, reconcileSettleSeconds } from './process-group-request.ts';

/** A pending request not picked up within this time was probably never queued (or its message was lost). */
export const REQUEUE_AFTER_SECONDS = 60;
/**
 * A `creating` request that has not moved for this long may have lost its job: a duplicate delivery that stopped
 * early can delete a message another run still needed, and no confirmation may ever come for a call Meta never got.
 * Queued again, the worker re-checks a held confirmation, or reconciles and resubmits; it never makes a second group.
 */
export const REQUEUE_STALLED_AFTER_SECONDS = 120;
/**
 * A request on hold (the network refused its channel, H-3) is tried again this long after the last refusal: once the
 * operator renewed the token it goes on by itself; until then one create call per request per interval reaches Meta.
 */
export const RECHECK_HOLD_AFTER_SECONDS = 300;
const BATCH = 100;
const REPUBLISH_AFTER_SECONDS = 30;

/**
 * The group sweeper (scheduled):
 * 0. A suspended organisation's open requests are skipped: its work waits, and none is failed while it waits.
 * 1. Open requests older than GROUP_CONFIRMATION_TIMEOUT_SECONDS: one that reached Meta is first looked for among the
 *    number's groups (GET /{phoneNumberId}/groups, CONTRACT §18) and completed if its group exists; while Meta cannot
 *    answer, or a create call may still be making the group, it stays open until a later sweep. Otherwise → `failed`
 *    with CONFIRMATION_TIMEOUT, or with the network's code and message when the request is on hold (that refusal is
 *    why it never completed). On a channel an operator disabled, Meta is not asked (the network gate refuses it):
 *    → `failed` with CHANNEL_DISABLED (CONTRACT §17).
 * 2. Requests still `pending` after a minute, `creating` with no change for two minutes, or on hold for five → queued
 *    again (the worker is idempotent).
 * 3. Final requests whose event was never published → published and stamped.
 * 4. Events of network notifications recorded but never stamped published → published and stamped.
 */
export async function sweepGroupRequests(deps: SweepGroupRequestsDeps) {
  const now = deps.clock.now().getTime();
  const timeoutMs = deps.config.groups.confirmationTimeoutSeconds * 1000;
  let timedOut = 0;
  let requeued = 0;
  let found = 0;
  let waiting = 0;
  for (const listed of await deps.groups.listOpen(BATCH)) {
    // Each request with its organisation's credentials (CONTRACT §25).
    const outcome = await forOrganisation(listed.orgId, (orgId) =>
      sweepOpenRequest(deps, { ...listed, orgId }, now, timeoutMs),
    );
    if (outcome === 'waiting') waiting += 1;
    if (outcome === 'timedOut') timedOut += 1;
    if (outcome === 'found') found += 1;
    if (outcome === 'requeued') requeued += 1;
  }
  // The call that made a request final announces it; only stragglers older than that call's run are republished.
  const unpublished = (await deps.groups.listUnpublished(BATCH)).filter(
    (request) => now - Date.parse(request.updatedAt) >= REPUBLISH_AFTER_SECONDS * 1000,
  );
  for (const request of unpublished) {
    await forOrganisation(request.orgId, (orgId) => announce(deps, { ...request, orgId }));
  }
  const republishedEvents = await republishRecordedEvents(deps, BATCH);
  if (timedOut + requeued + found + unpublished.length + republishedEvents > 0) {
    logger.info('group sweep', {
      timedOut,
      found,
      requeued,
      republished: unpublished.length,
      republishedEvents,
      suspendedWaiting: waiting,
    });
  }
  return { timedOut, found, requeued, republished: unpublished.length, republishedEvents, suspendedWaiting: waiting };
}

export type SweepGroupRequestsDeps = OutcomeDeps & {
  config: Pick<Config, 'groups'>;
  identity: ChannelStore;
  channelCredentials: ChannelCredentials;
  queue: JobQueue;
  outbox: EventOutbox;
  access: Pick<AccessStatusCache, 'workStatus'>;
};

type NetworkAnswer = 'completed' | 'absent' | 'unknown' | 'disabled';

/** One open request: timed out, found at Meta, queued again, or left to wait. */
async function sweepOpenRequest(
  deps: SweepGroupRequestsDeps,
  request: GroupRequest,
  now: number,
  timeoutMs: number,
): Promise<'waiting' | 'timedOut' | 'found' | 'requeued' | undefined> {
  // A suspended organisation's requests wait untouched (CONTRACT §17): neither timed out nor queued again; an erased
  // one's are left to its erasure.
  const status = await deps.access.workStatus(request.orgId);
  if (status !== 'active') return status === 'suspended' ? 'waiting' : undefined;
  const age = now - Date.parse(request.createdAt);
  if (age >= timeoutMs) {
    let answer: NetworkAnswer = 'absent';
    if (!request.onHold && (request.submittedAt || request.networkRequestId)) {
      answer = await askNetwork(deps, request, now);
      if (answer === 'completed') return 'found';
      if (answer === 'unknown') return undefined;
    }
    const error = request.onHold
      ? { code: request.onHold.code, message: request.onHold.message }
      : answer === 'disabled'
        ? CHANNEL_DISABLED
        : { code: 'CONFIRMATION_TIMEOUT', message: 'the network did not confirm the group in time' };
    return (await failGroup(deps, request, error)) ? 'timedOut' : undefined;
  }
  if (
    (request.status === 'pending' && age >= REQUEUE_AFTER_SECONDS * 1000) ||
    (request.status === 'creating' &&
      now - Date.parse(request.updatedAt) >=
        (request.onHold ? RECHECK_HOLD_AFTER_SECONDS : REQUEUE_STALLED_AFTER_SECONDS) * 1000)
  ) {
    await deps.queue.send(GROUP_REQUESTS_QUEUE, { orgId: request.orgId, requestId: request.requestId });
    return 'requeued';
  }
  return undefined;
}

/**
 * Whether Meta has the group of a request about to time out: `completed` (found, and the request completed with
 * it), `absent` (Meta answered without it, or refused the channel), `unknown` (a create call may still be making
 * it, Meta did not answer, or the organisation is suspended): an unknown request is asked again at the next sweep,
 * never failed. `disabled`: the network gate refuses the disabled channel, so Meta is not asked, and the request
 * fails with CHANNEL_DISABLED, unless Meta's confirmation of it is kept waiting for the channel (it made the group:
 * the request stays open until the channel is enabled and the worker completes it).
 */
async function askNetwork(deps: SweepGroupRequestsDeps, request: GroupRequest, now: number): Promise<NetworkAnswer> {
  if (request.submittedAt && now - Date.parse(request.submittedAt) < reconcileSettleSeconds(deps) * 1000) {
    return 'unknown';
  }
  const channel = await deps.identity.getChannel(request.orgId, request.channelId);
  if (!channel) return 'absent';
  try {
    let network: NetworkChannel;
    try {
      network = await deps.channelCredentials.forChannel(channel);
    } catch (error) {
      if (error instanceof OrgSuspendedError || error instanceof OrgGoneError) return 'unknown';
      if (!(error instanceof ChannelDisabledError)) throw error;
      const confirmed =
        request.networkRequestId && (await deps.groups.heldConfirmation(request.orgId, request.networkRequestId));
      return confirmed ? 'unknown' : 'disabled';
    }
    const group = await findSubmittedGroup(deps, request, network);
    if (!group) return 'absent';
    const inviteLink = await deps.network.getInviteLink(network, group.groupId);
    logger.info('found the group of a request about to time out', {
      requestId: request.requestId,
      groupId: group.groupId,
    });
    await completeGroup(
      deps,
      request,
      { groupId: group.groupId, inviteLink, phoneNumberId: network.phoneNumberId },
      granted(network),
    );
    return 'completed';
  } catch (error) {
    if (error instanceof NetworkError && error.kind === 'rejected') return 'absent';
    // One request Meta cannot answer for must not stop the sweep of the others.
    logger.warn('could not ask the network for a timed-out request; asking again at the next sweep', {
      requestId: request.requestId,
      error: error as Error,
    });
    return 'unknown';
  }
}
