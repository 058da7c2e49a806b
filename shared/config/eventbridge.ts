import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { EventBridgePublisher } from '#shared/adapters/eventbridge/event-publisher';
import type { EventPublisher } from '#shared/ports/event-publisher';
import { awsClientOptions, config } from './core.ts';
import { instance } from './instances.ts';

export function eventPublisher(): EventPublisher {
  return instance(eventPublisher, () => {
    const cfg = config();
    return new EventBridgePublisher(
      new EventBridgeClient(awsClientOptions(cfg.aws.endpoints.eventbridge)),
      cfg.aws.eventBusName,
    );
  });
}
