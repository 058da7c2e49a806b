import type { EventPattern } from './pattern.ts';

/** The `source` of every event this service publishes. */
export const EVENT_SOURCE = 'wp-crm';

/** Event `detail-type`s: the contract's names (CONTRACT §7 and §12). */
export const EVENT_TYPES = [
  'group.created',
  'group.creation_failed',
  'report.completed',
  'report.failed',
  'message.received',
  'message.status',
  'group.participants_changed',
  'group.updated',
  'group.deleted',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The event types of the first release: a subscription stored with exactly these was made for "every type". */
export const FIRST_EVENT_TYPES: readonly EventType[] = [
  'group.created',
  'group.creation_failed',
  'report.completed',
  'report.failed',
];

/** `events: ["*"]`: every event type, present and future (CONTRACT §12). */
export const ALL_EVENTS = '*';

/**
 * The variable that tells a consumer the size of its pool as deployed: the event source's MaximumConcurrency (set
 * from the same row of infra/aws/functions.ts by both stacks; start:cdk lowers it to the environments it runs per
 * function).
 */
export const poolSizeVariable = (queue: string) => `${queue.toUpperCase().replaceAll('-', '_')}_POOL_SIZE`;

/**
 * A rule on the service's bus: the local bus applies it, the CDK stack turns it into an EventBridge rule. Each is part
 * of its worker's row (infra/aws/functions.ts, `queue.fromBus`).
 */
export interface BusRule {
  id: string;
  description: string;
  pattern: EventPattern;
  /**
   * The queue (by logical name) the matching events go to. EventBridge's SQS target sends them without a
   * MessageGroupId of the event's own (SqsParameters takes a fixed group only, as AWS documents it): the queue's
   * consumer gives each its organisation's group itself (CONTRACT §18, §22).
   */
  targetQueue: string;
}
