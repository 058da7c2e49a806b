import { createGroupDeps } from '#shared/config/groups';
import { createGroup } from '#shared/domain/groups/create-group';
import { api } from '#shared/http/api';
import { idempotentResponse } from '#shared/http/idempotent-response';
import { createGroup as route } from '#shared/routes/groups';

export const handler = api(route).handler(async ({ orgId, payload, idempotencyKey }) =>
  idempotentResponse(
    createGroupDeps(),
    { orgId, idempotencyKey, operation: route.operationId, payload, idPrefix: 'grq' },
    async (id) => {
      const accepted = await createGroup(createGroupDeps(), { orgId, requestId: id, ...payload });
      return { statusCode: 202, body: accepted, location: accepted.statusUrl };
    },
  ),
);
