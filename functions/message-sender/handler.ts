import * as v from 'valibot';
import { messageSenderDeps } from '#shared/config/chats';
import { deliverMessage } from '#shared/domain/chats/deliver-message';
import { sqsConsumer } from '#shared/queue/consumer';

const OutboundMessage = v.object({ orgId: v.string(), chatId: v.string(), messageId: v.string() });

export const handler = sqsConsumer('outbound-messages', OutboundMessage, (message, receiveCount) =>
  deliverMessage(messageSenderDeps(), message, receiveCount),
);
