import { createHash, randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

/**
 * An in-process queue with the SQS semantics the service relies on: delays, a visibility timeout per receive,
 * receive counts, redrive to a dead-letter queue once a message has been received more than maxReceiveCount times,
 * and a Lambda-style consumer with batches and partial batch failures.
 */
export interface LocalQueueOptions {
  visibilityTimeoutSeconds: number;
  maxReceiveCount?: number;
  deadLetterQueue?: LocalQueue;
}

interface StoredMessage {
  messageId: string;
  body: string;
  sentAt: number;
  /** When the message first reached a queue: kept when it moves to the dead-letter queue, as SQS keeps it. */
  enqueuedAt?: number;
  visibleAt: number;
  receiveCount: number;
  firstReceivedAt?: number;
  receiptHandle?: string;
}

export class LocalQueue {
  readonly arn: string;
  /** Extra copies delivered so far (see duplicateDeliveries). */
  duplicated = 0;
  #messages = new Map<string, StoredMessage>();
  #duplication: { probability: number; random: () => number } | undefined;
  #listeners = new Set<() => void>();
  #now: () => number;

  constructor(
    readonly name: string,
    readonly options: LocalQueueOptions,
    now: () => number = Date.now,
  ) {
    this.arn = `arn:aws:sqs:local:000000000000:${name}`;
    this.#now = now;
  }

  send(body: string, delaySeconds = 0): string {
    const messageId = randomUUID();
    const now = this.#now();
    this.#messages.set(messageId, {
      messageId,
      body,
      sentAt: now,
      visibleAt: now + delaySeconds * 1000,
      receiveCount: 0,
    });
    this.#notify();
    return messageId;
  }

  /**
   * SQS delivers at least once: from now on each received message is, with `probability`, also delivered again as
   * a copy (a fault injection for consumers' idempotency). `random` makes the choice reproducible; 0 stops it.
   */
  duplicateDeliveries(probability: number, random: () => number = Math.random): void {
    this.#duplication = probability > 0 ? { probability, random } : undefined;
  }

  /**
   * Receives up to `max` visible messages; those past maxReceiveCount move to the dead-letter queue instead.
   * `visibilitySeconds` overrides the queue's visibility timeout, as ReceiveMessage's VisibilityTimeout does.
   */
  receive(max: number, visibilitySeconds = this.options.visibilityTimeoutSeconds): SQSRecord[] {
    const now = this.#now();
    const records: SQSRecord[] = [];
    for (const message of this.#messages.values()) {
      if (records.length >= max) break;
      if (message.visibleAt > now) continue;
      const { maxReceiveCount, deadLetterQueue } = this.options;
      if (maxReceiveCount !== undefined && deadLetterQueue && message.receiveCount >= maxReceiveCount) {
        this.#messages.delete(message.messageId);
        deadLetterQueue.#deadLetter(message);
        continue;
      }
      message.receiveCount += 1;
      message.firstReceivedAt ??= now;
      message.visibleAt = now + visibilitySeconds * 1000;
      message.receiptHandle = `${message.messageId}:${randomUUID()}`;
      records.push(this.#toRecord(message));
      if (this.#duplication && this.#duplication.random() < this.#duplication.probability) {
        this.duplicated += 1;
        this.send(message.body);
      }
    }
    return records;
  }

  /** The messages held now (visible or not), with their visibility, for tests that trace where a job went. */
  held(): { body: string; visibleAt: number; receiveCount: number }[] {
    return [...this.#messages.values()].map(({ body, visibleAt, receiveCount }) => ({ body, visibleAt, receiveCount }));
  }

  /** Deletes a message; a stale receipt handle (the message was received again since) is ignored, as in SQS. */
  delete(receiptHandle: string): void {
    const messageId = receiptHandle.split(':')[0]!;
    const message = this.#messages.get(messageId);
    if (message?.receiptHandle === receiptHandle) this.#messages.delete(messageId);
  }

  changeVisibility(receiptHandle: string, seconds: number): void {
    const message = this.#messages.get(receiptHandle.split(':')[0]!);
    if (message?.receiptHandle !== receiptHandle) return;
    message.visibleAt = this.#now() + seconds * 1000;
    this.#notify();
  }

  /** Milliseconds until the next message becomes visible, or undefined when the queue is empty. */
  nextVisibleInMs(): number | undefined {
    let soonest: number | undefined;
    for (const message of this.#messages.values()) soonest = Math.min(soonest ?? Infinity, message.visibleAt);
    return soonest === undefined ? undefined : Math.max(0, soonest - this.#now());
  }

  get size(): number {
    return this.#messages.size;
  }

  /** How many messages are visible now, and how many are in flight or delayed (SQS's approximate counts). */
  counts(): { visible: number; notVisible: number } {
    const now = this.#now();
    let visible = 0;
    for (const message of this.#messages.values()) if (message.visibleAt <= now) visible += 1;
    return { visible, notVisible: this.#messages.size - visible };
  }

  /** When the oldest message held was first enqueued (epoch ms), or undefined when the queue is empty. */
  oldestEnqueuedAt(): number | undefined {
    let oldest: number | undefined;
    for (const message of this.#messages.values())
      oldest = Math.min(oldest ?? Infinity, message.enqueuedAt ?? message.sentAt);
    return oldest;
  }

  /** A message that failed too often on its source queue, with its original timestamps and receive count. */
  #deadLetter(message: StoredMessage) {
    const messageId = randomUUID();
    this.#messages.set(messageId, {
      messageId,
      body: message.body,
      sentAt: message.sentAt,
      enqueuedAt: message.enqueuedAt ?? message.sentAt,
      visibleAt: this.#now(),
      receiveCount: message.receiveCount,
      firstReceivedAt: message.firstReceivedAt,
    });
    this.#notify();
  }

  /** Message bodies currently held (visible or not), oldest first; for tests and operators. */
  peek(): string[] {
    return [...this.#messages.values()].map((message) => message.body);
  }

  onMessage(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #notify() {
    for (const listener of this.#listeners) listener();
  }

  #toRecord(message: StoredMessage): SQSRecord {
    return {
      messageId: message.messageId,
      receiptHandle: message.receiptHandle!,
      body: message.body,
      attributes: {
        ApproximateReceiveCount: String(message.receiveCount),
        SentTimestamp: String(message.sentAt),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt),
      },
      messageAttributes: {},
      md5OfBody: createHash('md5').update(message.body).digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: this.arn,
      awsRegion: 'local',
    };
  }
}

export type SqsHandler = (event: SQSEvent) => Promise<SQSBatchResponse | undefined>;

export interface ConsumerOptions {
  batchSize: number;
  maxConcurrency: number;
  /** The mapping's FunctionResponseTypes include ReportBatchItemFailures (default true); otherwise Lambda ignores them. */
  reportBatchItemFailures?: boolean;
  onError?: (error: unknown) => void;
}

/**
 * Polls a queue like Lambda's event source mapping: a batch per invocation, up to maxConcurrency at once;
 * a thrown error fails the whole batch; `batchItemFailures` fail only those records (an empty or unknown
 * itemIdentifier fails the whole batch, as Lambda does); everything else is deleted.
 */
export class QueueConsumer {
  #running = 0;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;
  #unsubscribe: () => void;
  #idle: (() => void)[] = [];

  constructor(
    private readonly queue: LocalQueue,
    private readonly handler: SqsHandler,
    private readonly options: ConsumerOptions,
  ) {
    this.#unsubscribe = queue.onMessage(() => this.#pump());
    this.#pump();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe();
    clearTimeout(this.#timer);
    if (this.#running > 0) await new Promise<void>((resolve) => this.#idle.push(resolve));
  }

  #pump() {
    if (this.#stopped) return;
    while (this.#running < this.options.maxConcurrency) {
      const records = this.queue.receive(this.options.batchSize);
      if (records.length === 0) break;
      this.#running += 1;
      void this.#invoke(records).finally(() => {
        this.#running -= 1;
        if (this.#running === 0) for (const resolve of this.#idle.splice(0)) resolve();
        this.#pump();
      });
    }
    this.#schedule();
  }

  #schedule() {
    clearTimeout(this.#timer);
    const wait = this.queue.nextVisibleInMs();
    if (wait === undefined || this.#stopped) return;
    this.#timer = setTimeout(() => this.#pump(), Math.max(wait, 5));
    this.#timer.unref();
  }

  async #invoke(records: SQSRecord[]) {
    let failed: Set<string>;
    try {
      const result = await this.handler({ Records: records });
      if (this.options.reportBatchItemFailures === false) return this.#deleteAll(records, new Set());
      const identifiers = (result?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier);
      const known = new Set(records.map((record) => record.messageId));
      failed = identifiers.every((id) => typeof id === 'string' && known.has(id))
        ? new Set(identifiers)
        : new Set(known);
    } catch (error) {
      this.options.onError?.(error);
      failed = new Set(records.map((record) => record.messageId));
    }
    this.#deleteAll(records, failed);
  }

  #deleteAll(records: SQSRecord[], failed: Set<string>) {
    for (const record of records) if (!failed.has(record.messageId)) this.queue.delete(record.receiptHandle);
  }
}
