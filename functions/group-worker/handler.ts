import * as v from 'valibot';
import { deps } from '#shared/config/deps';
import { processGroupRequest } from '#shared/domain/groups/process-group-request';
import { sqsConsumer } from '#shared/queue/consumer';

const GroupRequestMessage = v.object({ orgId: v.string(), requestId: v.string() });

export const handler = sqsConsumer('group-requests', GroupRequestMessage, (message, receiveCount) =>
  processGroupRequest(deps(), message, receiveCount),
);
