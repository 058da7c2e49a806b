import { RequestNotFoundError } from '#shared/errors';
import type { GroupRequestStore } from '#shared/ports/group-request-store';
import { statusView } from './group-request.ts';

/** A group request of this organisation; another organisation's id is as unknown as a missing one. */
export async function getCreationStatus(
  deps: { groups: GroupRequestStore },
  input: { orgId: string; requestId: string },
) {
  const request = await deps.groups.get(input.orgId, input.requestId);
  if (!request) throw new RequestNotFoundError(input.requestId);
  return statusView(request);
}
