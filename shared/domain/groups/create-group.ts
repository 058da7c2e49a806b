import type { Config } from '#shared/config/env';
import type { Channel } from '#shared/domain/orgs/model';
import { ChannelDisabledError, ChannelNotFoundError, DomainError, RateLimitedError } from '#shared/errors';
import { logger } from '#shared/observability/logger';
import type { Clock } from '#shared/ports/clock';
import type { GroupRequestStore } from '#shared/ports/group-request-store';
import type { RateLimiter } from '#shared/ports/idempotency-store';
import type { ChannelStore } from '#shared/ports/identity-store';
import type { IdGenerator } from '#shared/ports/ids';
import type { JobQueue } from '#shared/ports/job-queue';
import type { GroupRequest } from './group-request.ts';

export interface CreateGroupDeps {
  config: Pick<Config, 'groups'>;
  clock: Clock;
  ids: IdGenerator;
  identity: ChannelStore;
  groups: GroupRequestStore;
  limits: RateLimiter;
  queue: JobQueue;
}

export interface CreateGroupInput {
  orgId: string;
  /** The id to create the request under (the Idempotency-Key's reserved id); a new one without. */
  requestId?: string;
  channelId: string;
  subject: string;
  description?: string;
  requireJoinApproval: boolean;
}

export const GROUP_REQUESTS_QUEUE = 'group-requests';

/** Why a channel cannot host groups (CONTRACT §4), or undefined when it can. */
export function ineligibility(channel: Channel) {
  if (channel.type !== 'MESSAGING_OFFICIAL') return 'NOT_MESSAGING_OFFICIAL';
  if (!channel.officialBusinessAccount) return 'NOT_OFFICIAL_BUSINESS_ACCOUNT';
  if (!channel.groupsEligible || !channel.phoneNumberId) return 'NOT_GROUPS_ELIGIBLE';
  return undefined;
}

/**
 * Accepts a group creation request.
 * 1. The channel must exist in this organisation (404), not be disabled (422 CHANNEL_DISABLED) and be able to host
 *    groups (422 with a reason).
 * 2. Count it against the organisation's rate limit (429 with Retry-After).
 * 3. Store the request `pending`, then queue it for the group worker. If queueing fails the request is still
 *    stored, and the sweeper queues pending requests that were not picked up, so a 202 is never lost.
 */
export async function createGroup(deps: CreateGroupDeps, input: CreateGroupInput) {
  const channel = await deps.identity.getChannel(input.orgId, input.channelId);
  if (!channel) throw new ChannelNotFoundError(input.channelId);
  if (channel.disabledAt) throw new ChannelDisabledError(input.channelId);
  const reason = ineligibility(channel);
  if (reason) {
    throw new DomainError('CHANNEL_NOT_ELIGIBLE', `channel ${input.channelId} cannot host groups: ${reason}`, {
      extensions: { reason },
    });
  }

  const now = deps.clock.now();
  const { limit, windowSeconds } = deps.config.groups.createRateLimit;
  const quota = await deps.limits.take('group-create', input.orgId, limit, windowSeconds, now);
  if (!quota.allowed) {
    throw new RateLimitedError(`at most ${limit} group requests per ${windowSeconds} s`, quota.retryAfterSeconds);
  }

  const request: GroupRequest = {
    requestId: input.requestId ?? deps.ids.next('grq'),
    orgId: input.orgId,
    channelId: input.channelId,
    subject: input.subject,
    description: input.description,
    requireJoinApproval: input.requireJoinApproval,
    status: 'pending',
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
  // Not stored: the request is already there, made by a failed earlier call with the same Idempotency-Key. It is
  // answered again, and queued again while it still waits (that call may have failed before queueing it).
  const stored = await deps.groups.create(request);
  const waiting = stored || (await deps.groups.get(input.orgId, request.requestId))?.status === 'pending';
  if (waiting) {
    try {
      await deps.queue.send(GROUP_REQUESTS_QUEUE, { orgId: request.orgId, requestId: request.requestId });
    } catch (error) {
      logger.error('group request stored but not queued; the sweeper will queue it', {
        requestId: request.requestId,
        error: error as Error,
      });
    }
  }
  return accepted(input.orgId, request.requestId);
}

function accepted(orgId: string, requestId: string) {
  const statusUrl = `/api/wp-crm/groups/${orgId}/creation-status/${requestId}`;
  return { requestId, status: 'pending' as const, statusUrl };
}
