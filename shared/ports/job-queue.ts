/**
 * A job for one of the service's queues. Every job belongs to an organisation: its `orgId` is the tenant of SQS fair
 * queues (the message's MessageGroupId), so one organisation's backlog cannot hold back another's (CONTRACT §18).
 */
export interface Job {
  orgId: string;
}

/** Sends work to one of the service's queues (by logical name, see shared/events/catalog.ts). */
export interface JobQueue {
  send<T extends Job>(queue: string, body: T, options?: { delaySeconds?: number }): Promise<void>;
  /** Makes a received message visible again after `seconds`: the backoff of a retried record. */
  retryAfter(queue: string, receiptHandle: string, seconds: number): Promise<void>;
}
