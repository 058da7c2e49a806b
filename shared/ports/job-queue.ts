/** Sends work to one of the service's queues (by logical name, see shared/events/catalog.ts). */
export interface JobQueue {
  send(queue: string, body: unknown, options?: { delaySeconds?: number }): Promise<void>;
  /** Makes a received message visible again after `seconds`: the backoff of a retried record. */
  retryAfter(queue: string, receiptHandle: string, seconds: number): Promise<void>;
}
