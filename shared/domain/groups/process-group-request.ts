import type { Config } from '#shared/config/env';
import { ChannelDisabledError } from '#shared/errors';
import { logger } from '#shared/observability/logger';
import type { ChannelCredentials } from '#shared/ports/channel-credentials';
import type { ChannelStore } from '#shared/ports/identity-store';
import { type NetworkChannel, NetworkError, type NetworkGroup } from '#shared/ports/messaging-network';
import { backoffSeconds, RetryLater } from '#shared/queue/retry';
import { applyGroupCreateNotification, type HeldGroupCreate } from './apply-group-create.ts';
import { ineligibility } from './create-group.ts';
import { chatIdFor, type GroupRequest } from './group-request.ts';
import { completeGroup, failGroup, granted, networkFailure, type OutcomeDeps } from './outcomes.ts';

export interface ProcessGroupRequestDeps extends OutcomeDeps {
  config: Pick<Config, 'groups'>;
  identity: ChannelStore;
  channelCredentials: ChannelCredentials;
}

/**
 * Meta's codes that refuse the channel rather than the request: 190 (access token expired or revoked) and 368
 * (the number is temporarily blocked for policy violations). Retrying cannot help and failing would lose requests an
 * operator can save by renewing the token, so the request is put on hold with an alert (RELIABILITY H-3).
 */
export const HOLD_CODES: ReadonlySet<number> = new Set([190, 368]);

/** The `alert` of the log line a hold writes; the stack's alarm counts these lines. */
export const GROUP_REQUEST_ON_HOLD = 'GROUP_REQUEST_ON_HOLD';

/** Allowed clock skew between our submission time and Meta's `created_at` when matching a listed group. */
const RECONCILE_SKEW_MS = 60_000;

/**
 * Submits one group request to the network (the group worker's job). Safe to run any number of times.
 * 1. Skip a request that is gone or final; fail one whose channel can no longer host groups; one whose channel the
 *    network gate refuses (disabled) is never submitted (whileDisabled).
 * 2. `pending` → `creating` by conditional write.
 * 3. A previous call whose outcome is unknown (`submittedAt` set, no Meta request_id): once the settle time has
 *    passed (and at least the network's call timeout, so that call has ended), list the number's groups; a matching
 *    group completes the request, otherwise the marker is cleared and the request is submitted again. One request
 *    never makes two groups.
 * 4. Mark the submission, POST /{phoneNumberId}/groups, link Meta's request_id to the request, and apply a
 *    confirmation that arrived before the link.
 * 5. Not sent → clear the marker and retry with backoff; ambiguous → retry (reconcile) after the settle time;
 *    the channel refused (HOLD_CODES) → put on hold with an alert, no retry (the sweeper re-checks it now and then
 *    until its confirmation timeout); rejected → fail the request with Meta's code and message.
 */
export async function processGroupRequest(
  deps: ProcessGroupRequestDeps,
  message: { orgId: string; requestId: string },
  receiveCount: number,
): Promise<void> {
  const job = await openJob(deps, message, receiveCount);
  if (!job) return;
  const request = await startCreating(deps, job.request);
  if (!request) return;
  if (request.networkRequestId) {
    // A previous run linked Meta's request id but may have stopped before it looked for a confirmation that came
    // first (the notification handler keeps those): look again; applying one twice changes nothing.
    await applyHeldConfirmation(deps, request.orgId, request.networkRequestId);
    return;
  }
  if (!job.network) {
    await whileDisabled(deps, request, deps.clock.now().toISOString());
    return;
  }
  if (!(await settlePreviousSubmission(deps, request, job.network, receiveCount))) return;
  await submit(deps, request, job.network, receiveCount);
}

/**
 * Step 1: the request, unless it is gone or final, and its channel's network access (undefined when the network
 * gate refuses a disabled channel). A request whose channel can no longer host groups fails here.
 */
async function openJob(
  deps: ProcessGroupRequestDeps,
  message: { orgId: string; requestId: string },
  receiveCount: number,
): Promise<{ request: GroupRequest; network: NetworkChannel | undefined } | undefined> {
  const request = await deps.groups.get(message.orgId, message.requestId);
  logger.debug('group request job', {
    requestId: message.requestId,
    receiveCount,
    status: request?.status,
    submittedAt: request?.submittedAt,
    networkRequestId: request?.networkRequestId,
  });
  if (!request || request.status === 'created' || request.status === 'failed') return undefined;
  const channel = await deps.identity.getChannel(request.orgId, request.channelId);
  const reason = channel ? ineligibility(channel) : 'NOT_FOUND';
  if (!channel || reason) {
    await failGroup(deps, request, {
      code: 'CHANNEL_NOT_ELIGIBLE',
      message: `the channel cannot host groups (${reason})`,
    });
    return undefined;
  }
  // The network gate: a disabled channel's request is not submitted (whileDisabled); a suspended organisation's
  // refusal goes up, and the queue consumer puts the job back to wait.
  let network: NetworkChannel | undefined;
  try {
    network = await deps.channelCredentials.forChannel(channel);
  } catch (error) {
    if (!(error instanceof ChannelDisabledError)) throw error;
  }
  return { request, network };
}

/** Step 2: `pending` → `creating` by conditional write; the request as it now stands, if it is `creating`. */
async function startCreating(deps: ProcessGroupRequestDeps, request: GroupRequest): Promise<GroupRequest | undefined> {
  if (request.status !== 'pending') return request;
  const now = deps.clock.now().toISOString();
  const moved =
    (await deps.groups.transition(request.orgId, request.requestId, ['pending'], 'creating', { now })) ??
    (await deps.groups.get(request.orgId, request.requestId));
  return moved?.status === 'creating' ? moved : undefined;
}

/** Applies a confirmation of Meta's request that arrived before the request was linked to it. */
async function applyHeldConfirmation(
  deps: ProcessGroupRequestDeps,
  orgId: string,
  networkRequestId: string,
): Promise<void> {
  const held = (await deps.groups.heldConfirmation(orgId, networkRequestId)) as HeldGroupCreate | undefined;
  if (held) await applyGroupCreateNotification(deps, held);
}

/**
 * Step 3, when a previous create call's outcome is unknown (`submittedAt` set): once it cannot still make the group,
 * a matching group of the number completes the request; otherwise the marker is cleared. True when the request is
 * to be submitted (now).
 */
async function settlePreviousSubmission(
  deps: ProcessGroupRequestDeps,
  request: GroupRequest,
  network: NetworkChannel,
  receiveCount: number,
): Promise<boolean> {
  if (!request.submittedAt) return true;
  // Never reconcile while the previous create call may still be in flight: it could still make the group.
  const settleSeconds = reconcileSettleSeconds(deps);
  const waited = (deps.clock.now().getTime() - Date.parse(request.submittedAt)) / 1000;
  if (waited < settleSeconds) {
    throw new RetryLater(settleSeconds - waited, 'the last create call has an unknown outcome; reconciling later');
  }
  const existing = await reconcile(deps, request, network, receiveCount);
  if (existing) {
    const inviteLink = await withRetry(
      () => deps.network.getInviteLink(network, existing.groupId),
      deps.config.groups.retryBaseSeconds,
      receiveCount,
    );
    logger.info('reconciled a group request with an existing group', {
      requestId: request.requestId,
      groupId: existing.groupId,
    });
    const group = { groupId: existing.groupId, inviteLink, phoneNumberId: network.phoneNumberId };
    await completeGroup(deps, request, group, granted(network));
    return false;
  }
  const now = deps.clock.now().toISOString();
  if (!(await deps.groups.markSubmission(request.orgId, request.requestId, request.submittedAt, undefined, now))) {
    logger.debug('another run moved the submission on; this one stops', { requestId: request.requestId });
    return false;
  }
  return true;
}

/**
 * Step 4: mark the submission, POST /{phoneNumberId}/groups, link Meta's request_id to the request, and apply a
 * confirmation that arrived before the link.
 */
async function submit(
  deps: ProcessGroupRequestDeps,
  request: GroupRequest,
  network: NetworkChannel,
  receiveCount: number,
): Promise<void> {
  const marker = deps.clock.now().toISOString();
  if (!(await deps.groups.markSubmission(request.orgId, request.requestId, undefined, marker, marker))) {
    logger.debug('another run is submitting this request; this one stops', { requestId: request.requestId });
    return;
  }
  let networkRequestId: string;
  try {
    ({ networkRequestId } = await deps.network.createGroup(network, {
      subject: request.subject,
      description: request.description,
      joinApprovalMode: request.requireJoinApproval ? 'approval_required' : 'auto_approve',
    }));
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error;
    await createFailed(deps, request, marker, error, receiveCount);
    return;
  }
  await deps.groups.linkNetworkRequest({
    networkRequestId,
    orgId: request.orgId,
    requestId: request.requestId,
    phoneNumberId: network.phoneNumberId,
  });
  const now = deps.clock.now().toISOString();
  await deps.groups.setNetworkRequestId(request.orgId, request.requestId, networkRequestId, now);
  await applyHeldConfirmation(deps, request.orgId, networkRequestId);
}

/**
 * Step 5, the create call failed: not sent → clear the marker and retry with backoff; ambiguous → retry (reconcile)
 * after the settle time; the channel refused (HOLD_CODES) → on hold; rejected → the request fails with Meta's code.
 */
async function createFailed(
  deps: ProcessGroupRequestDeps,
  request: GroupRequest,
  marker: string,
  error: NetworkError,
  receiveCount: number,
): Promise<void> {
  const { retryBaseSeconds } = deps.config.groups;
  if (error.kind === 'not-sent') {
    await deps.groups.markSubmission(
      request.orgId,
      request.requestId,
      marker,
      undefined,
      deps.clock.now().toISOString(),
    );
    throw new RetryLater(
      backoffSeconds(retryBaseSeconds, receiveCount, error.details.retryAfterSeconds),
      error.message,
    );
  }
  if (error.kind === 'ambiguous') {
    const settleSeconds = reconcileSettleSeconds(deps);
    throw new RetryLater(Math.max(settleSeconds, backoffSeconds(retryBaseSeconds, receiveCount)), error.message);
  }
  if (error.code !== undefined && HOLD_CODES.has(error.code)) {
    await putOnHold(deps, request, marker, error);
    return;
  }
  await failGroup(deps, request, networkFailure(error.code, error.message));
}

/**
 * The network gate refuses the channel: an operator disabled it after the request was accepted (CONTRACT §17).
 * Nothing reaches Meta, and nothing is left half-done (one Meta has, with its request_id linked, was handled above:
 * only its confirmation is awaited):
 * - A create call's outcome is unknown (`submittedAt`): it may have made the group, so the request stays open; the
 *   sweeper decides at its confirmation timeout.
 * - Not submitted: the submission is claimed (so no other run can still submit it), and the request fails with
 *   CHANNEL_DISABLED.
 */
async function whileDisabled(deps: ProcessGroupRequestDeps, request: GroupRequest, now: string) {
  if (request.submittedAt) {
    logger.info('channel disabled while a create call may have made the group; left to the sweeper', {
      requestId: request.requestId,
    });
    return;
  }
  if (!(await deps.groups.markSubmission(request.orgId, request.requestId, undefined, now, now))) {
    logger.debug('another run is submitting this request; this one stops', { requestId: request.requestId });
    return;
  }
  await failGroup(deps, request, CHANNEL_DISABLED);
}

/** The error of a group request an operator's `channel disable` stopped (CONTRACT §17). */
export const CHANNEL_DISABLED = {
  code: 'CHANNEL_DISABLED',
  message: 'the channel was disabled by an operator before the group was created',
};

/** The network refused the channel: no retry and no failure; the operators' alarm counts the alert line. */
async function putOnHold(deps: ProcessGroupRequestDeps, request: GroupRequest, marker: string, error: NetworkError) {
  const hold = { code: String(error.code), message: error.message, since: deps.clock.now().toISOString() };
  if (!(await deps.groups.putOnHold(request.orgId, request.requestId, marker, hold))) return;
  logger.error('alert: the network refuses the channel; the group request is on hold until an operator acts', {
    alert: GROUP_REQUEST_ON_HOLD,
    orgId: request.orgId,
    requestId: request.requestId,
    channelId: request.channelId,
    networkCode: error.code,
  });
}

/**
 * A group of the number with the request's subject, created since the submission and not linked to another chat.
 * A group already linked to this request's own chat is its group: a run that linked it stopped before the request
 * became `created` (a crash, a timeout, a store outage), and the completion resumes with it instead of creating a
 * second group.
 */
async function reconcile(
  deps: ProcessGroupRequestDeps,
  request: GroupRequest,
  network: NetworkChannel,
  receiveCount: number,
): Promise<NetworkGroup | undefined> {
  const groups = await withRetry(
    () => deps.network.listGroups(network),
    deps.config.groups.retryBaseSeconds,
    receiveCount,
  );
  return unlinkedMatch(deps, request, groups);
}

/**
 * Meta has no lookup by its request_id (WHATSAPP-GROUPS.md): the request's group is the one of its number with the
 * request's subject (Meta trims it), created no earlier than the submission (less clock skew), not linked to a chat.
 */
export async function findSubmittedGroup(
  deps: Pick<OutcomeDeps, 'network' | 'chats'>,
  request: GroupRequest,
  network: NetworkChannel,
): Promise<NetworkGroup | undefined> {
  return unlinkedMatch(deps, request, await deps.network.listGroups(network));
}

async function unlinkedMatch(deps: Pick<OutcomeDeps, 'chats'>, request: GroupRequest, groups: NetworkGroup[]) {
  const since = Date.parse(request.submittedAt ?? request.createdAt) - RECONCILE_SKEW_MS;
  const ownChatId = chatIdFor(request.requestId);
  for (const group of groups) {
    if (group.subject.trim() !== request.subject.trim()) continue;
    const link = await deps.chats.findExternalChat(group.groupId);
    if (link) {
      if (link.orgId === request.orgId && link.chatId === ownChatId) return group;
      continue;
    }
    if (group.createdAt && Date.parse(group.createdAt) < since) continue;
    return group;
  }
  return undefined;
}

/** How long a create call may still make its group: the settle time, and at least the network's call timeout. */
export function reconcileSettleSeconds(deps: Pick<ProcessGroupRequestDeps, 'config' | 'network'>): number {
  return Math.max(deps.config.groups.reconcileSettleSeconds, deps.network.callTimeoutSeconds + 1);
}

/** A read that failed in any way is simply retried later: reads have no effect to reconcile. */
async function withRetry<T>(call: () => Promise<T>, baseSeconds: number, receiveCount: number): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error;
    throw new RetryLater(backoffSeconds(baseSeconds, receiveCount, error.details.retryAfterSeconds), error.message);
  }
}
