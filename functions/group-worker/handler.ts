import * as v from 'valibot';
import { groupWorkerDeps } from '#shared/config/groups';
import { processGroupRequest } from '#shared/domain/groups/process-group-request';
import { sqsConsumer } from '#shared/queue/consumer';

const GroupRequestMessage = v.object({ orgId: v.string(), requestId: v.string() });

export const handler = sqsConsumer('group-requests', GroupRequestMessage, (message, receiveCount) =>
  processGroupRequest(groupWorkerDeps(), message, receiveCount),
);
