import type { MiddlewareObj } from '@middy/core';
import { clock, config } from '#shared/config/core';
import { limits } from '#shared/config/dynamodb';
import { chargeRequest, type RequestCharge, refundRequest } from '#shared/domain/limits/request-quota';
import { DomainError } from '#shared/errors';
import { logger } from '#shared/observability/logger';
import type { RouteDef } from '#shared/routes/route';
import type { ApiEvent } from './http-api.ts';
import { PROBLEMS } from './problem.ts';
import type { HttpResult } from './responses.ts';

const charges = new WeakMap<object, RequestCharge>();

/**
 * The per-organisation quotas of every authenticated route (CONTRACT §18). Runs after `httpApi`'s checks, so a
 * request refused for its token, role, media type or body never counts; a refusal of the use case that comes
 * before the limits in the order of checks (§1: the resource, idempotency) is taken back.
 */
export function requestQuota<R extends RouteDef>(route: R): MiddlewareObj<ApiEvent<R>, HttpResult> {
  const deps = () => ({ config: config(), clock: clock(), limits: limits() });
  return {
    before: async (request) => {
      // The token's organisation: the one proven, whose credentials the request has (CONTRACT §25).
      const orgId = request.event.auth?.orgId ?? request.event.orgId;
      if (!orgId) return;
      charges.set(request.event, await chargeRequest(deps(), { orgId, callsNetwork: route.callsNetwork === true }));
    },
    onError: async (request) => {
      const charge = charges.get(request.event);
      if (!charge || !(request.error instanceof DomainError) || !refusedBeforeLimits(request.error)) return;
      charges.delete(request.event);
      await refundRequest(deps(), charge).catch((error: unknown) =>
        logger.warn('request quota: refund failed', { error: error as Error }),
      );
    },
  };
}

/**
 * Refusals of the body, the resource and idempotency (400 / 404 / 410 / 413 / 415 / 422, key conflicts); Meta's own
 * refusal counts (the call was made), and so does a refusal by another limit.
 */
function refusedBeforeLimits(error: DomainError): boolean {
  if (error.code === 'IDEMPOTENCY_KEY_IN_USE' || error.code === 'IDEMPOTENCY_KEY_REUSED') return true;
  if (['NETWORK_REJECTED', 'WEBHOOK_LIMIT_REACHED', 'SCHEDULE_LIMIT_REACHED'].includes(error.code)) return false;
  const status = error.status ?? PROBLEMS[error.code].status;
  return [400, 404, 410, 413, 415, 422].includes(status);
}
