import { createGroupDeps } from '#shared/config/groups';
import { createGroup } from '#shared/domain/groups/create-group';
import { api } from '#shared/http/api';
import { idempotentResponse } from '#shared/http/idempotent-response';
import { createGroup as route } from '#shared/routes/groups';

export const handler = api(route).handler(async ({ orgId, payload, idempotencyKey }) => {
  const key = { orgId, idempotencyKey, operation: route.operationId, payload, idPrefix: 'grq' };
  return idempotentResponse(createGroupDeps(), key, async (requestId) => {
    const accepted = await createGroup(createGroupDeps(), { orgId, requestId, ...payload });
    return { statusCode: 202, body: accepted, location: accepted.statusUrl };
  });
});
