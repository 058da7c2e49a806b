import { createHash, randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

/**
 * An in-process queue with the SQS semantics the service relies on: delays, a visibility timeout per receive,
 * receive counts, redrive to a dead-letter queue once a message has been received more than maxReceiveCount times,
 * fair-queue ordering by MessageGroupId (see FairQueueOptions), and a Lambda-style consumer with batches and partial
 * batch failures.
 */
export interface LocalQueueOptions {
  visibilityTimeoutSeconds: number;
  maxReceiveCount?: number;
  deadLetterQueue?: LocalQueue;
  /** Fair-queue detection; the defaults are the thresholds AWS documents. */
  fairness?: Partial<FairQueueOptions>;
}

/**
 * SQS fair queues (a standard queue whose messages carry a MessageGroupId, the tenant), as AWS documents them
 * ("How Amazon SQS fair queues work", SQS Developer Guide). A tenant is a noisy neighbour while either
 * - it holds more than `concurrencyShare` of the queue's in-flight messages and at least `minInFlight` of its own, or
 * - its share of the consumers' recent processing time (the last `processingWindowMs`) exceeds `processingTimeShare`.
 * A receive then returns quiet tenants' messages first; noisy tenants' messages only when no quiet one is visible,
 * from the noisy tenant with the fewest messages in flight first. Nothing is dropped or throttled. A noisy tenant
 * stays deprioritised while its in-flight count stays above every quiet tenant's, until its backlog is empty or it
 * sent nothing for `quietAfterMs`. A message without a MessageGroupId is a tenant of its own.
 * In flight means received and not deleted, until the visibility timeout (or a ChangeMessageVisibility) runs out;
 * processing time runs from a receive until the consumer deletes the message or changes its visibility.
 */
export interface FairQueueOptions {
  concurrencyShare: number;
  minInFlight: number;
  processingTimeShare: number;
  processingWindowMs: number;
  quietAfterMs: number;
}

export const SQS_FAIR_QUEUE_DEFAULTS: FairQueueOptions = {
  concurrencyShare: 0.1,
  minInFlight: 30,
  processingTimeShare: 0.1,
  processingWindowMs: 60_000,
  quietAfterMs: 300_000,
};

interface StoredMessage {
  messageId: string;
  body: string;
  groupId?: string;
  sentAt: number;
  /** When the message first reached a queue: kept when it moves to the dead-letter queue, as SQS keeps it. */
  enqueuedAt?: number;
  visibleAt: number;
  receiveCount: number;
  firstReceivedAt?: number;
  receiptHandle?: string;
  /** Set from a receive until the consumer deletes the message or changes its visibility (processing time). */
  processingSince?: number;
}

interface TenantState {
  lastSentAt: number;
  noisy: boolean;
  /** Finished processing spans within the window: [end, duration]. */
  processed: [number, number][];
}

/** What a receive saw of one tenant (for tests and the noisy-neighbour benchmark). */
export interface TenantView {
  tenant: string;
  inFlight: number;
  backlog: number;
  processingMs: number;
  noisy: boolean;
}

export class LocalQueue {
  readonly arn: string;
  /** Extra copies delivered so far (see duplicateDeliveries). */
  duplicated = 0;
  #messages = new Map<string, StoredMessage>();
  #tenants = new Map<string, TenantState>();
  #fairness: FairQueueOptions;
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
    this.#fairness = { ...SQS_FAIR_QUEUE_DEFAULTS, ...options.fairness };
  }

  /** Sends a message; `groupId` (MessageGroupId) names its tenant for the fair-queue ordering. */
  send(body: string, delaySeconds = 0, groupId?: string): string {
    const messageId = randomUUID();
    const now = this.#now();
    this.#messages.set(messageId, {
      messageId,
      body,
      ...(groupId === undefined ? {} : { groupId }),
      sentAt: now,
      visibleAt: now + delaySeconds * 1000,
      receiveCount: 0,
    });
    if (groupId !== undefined) this.#tenant(groupId).lastSentAt = now;
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
   * Receives up to `max` visible messages, quiet tenants' first (see FairQueueOptions); those past maxReceiveCount
   * move to the dead-letter queue instead.
   */
  receive(max: number, visibilitySeconds = this.options.visibilityTimeoutSeconds): SQSRecord[] {
    const now = this.#now();
    const { maxReceiveCount, deadLetterQueue } = this.options;
    const visible = new Map<string, StoredMessage[]>();
    const inFlight = new Map<string, number>();
    for (const message of this.#messages.values()) {
      const tenant = tenantOf(message);
      if (message.visibleAt > now) {
        if (message.receiveCount > 0) inFlight.set(tenant, (inFlight.get(tenant) ?? 0) + 1);
        continue;
      }
      if (message.processingSince !== undefined) this.#endProcessing(message, message.visibleAt);
      if (maxReceiveCount !== undefined && deadLetterQueue && message.receiveCount >= maxReceiveCount) {
        this.#messages.delete(message.messageId);
        deadLetterQueue.#deadLetter(message);
        continue;
      }
      const list = visible.get(tenant);
      if (list) list.push(message);
      else visible.set(tenant, [message]);
    }
    const noisy = this.#noisyTenants(now, visible, inFlight);

    const records: SQSRecord[] = [];
    const take = (message: StoredMessage) => {
      const tenant = tenantOf(message);
      inFlight.set(tenant, (inFlight.get(tenant) ?? 0) + 1);
      message.receiveCount += 1;
      message.firstReceivedAt ??= now;
      message.visibleAt = now + visibilitySeconds * 1000;
      message.receiptHandle = `${message.messageId}:${randomUUID()}`;
      message.processingSince = now;
      records.push(this.#toRecord(message));
      if (this.#duplication && this.#duplication.random() < this.#duplication.probability) {
        this.duplicated += 1;
        copies.push(message);
      }
    };
    // The copies are sent once this receive is done: a send notifies the consumers at once, and a consumer that
    // received again from inside this loop would take the messages this receive still holds as visible a second
    // time (two receipts of one message in one instant, each counted towards maxReceiveCount).
    const copies: StoredMessage[] = [];
    const done = () => {
      for (const copy of copies.splice(0)) this.send(copy.body, 0, copy.groupId);
      return records;
    };
    // Quiet tenants first, in the order their messages arrived.
    const quiet = [...visible]
      .filter(([tenant]) => !noisy.has(tenant))
      .flatMap(([, messages]) => messages)
      .sort((a, b) => a.sentAt - b.sentAt);
    for (const message of quiet) {
      if (records.length >= max) return done();
      take(message);
    }
    // Then noisy tenants, the one with the fewest messages in flight first.
    const waiting = [...noisy].map((tenant) => ({ tenant, messages: visible.get(tenant) ?? [] }));
    while (records.length < max) {
      let next: { tenant: string; messages: StoredMessage[] } | undefined;
      for (const candidate of waiting) {
        if (candidate.messages.length === 0) continue;
        if (!next || (inFlight.get(candidate.tenant) ?? 0) < (inFlight.get(next.tenant) ?? 0)) next = candidate;
      }
      if (!next) break;
      take(next.messages.shift()!);
    }
    // A noisy tenant whose backlog this receive drained is quiet again.
    for (const { tenant, messages } of waiting) {
      const state = this.#tenants.get(tenant);
      if (state && messages.length === 0) state.noisy = false;
    }
    return done();
  }

  /** Each tenant's in-flight count, backlog, recent processing time and whether it is deprioritised now. */
  tenants(): TenantView[] {
    const now = this.#now();
    const views = new Map<string, TenantView>();
    const view = (tenant: string) => {
      let found = views.get(tenant);
      if (!found) {
        found = { tenant, inFlight: 0, backlog: 0, processingMs: 0, noisy: this.#tenants.get(tenant)?.noisy ?? false };
        views.set(tenant, found);
      }
      return found;
    };
    for (const message of this.#messages.values()) {
      const entry = view(tenantOf(message));
      if (message.visibleAt > now && message.receiveCount > 0) entry.inFlight += 1;
      else entry.backlog += 1;
    }
    for (const [tenant, ms] of this.#processingTime(now)) view(tenant).processingMs = ms;
    return [...views.values()];
  }

  #noisyTenants(now: number, visible: Map<string, StoredMessage[]>, inFlight: Map<string, number>): Set<string> {
    const fair = this.#fairness;
    const totalInFlight = [...inFlight.values()].reduce((sum, count) => sum + count, 0);
    const processing = this.#processingTime(now);
    const totalProcessing = [...processing.values()].reduce((sum, ms) => sum + ms, 0);
    const detected = (tenant: string) => {
      const own = inFlight.get(tenant) ?? 0;
      if (own >= fair.minInFlight && own > fair.concurrencyShare * totalInFlight) return true;
      return totalProcessing > 0 && (processing.get(tenant) ?? 0) > fair.processingTimeShare * totalProcessing;
    };
    const flagged = new Set<string>();
    for (const tenant of visible.keys()) if (detected(tenant)) flagged.add(tenant);
    // A tenant once detected stays deprioritised while it still has a backlog, still sends, and still holds more in
    // flight than any quiet tenant (its share is not yet comparable to theirs).
    const quietInFlight = Math.max(
      0,
      ...[...inFlight]
        .filter(([tenant]) => !flagged.has(tenant) && !this.#tenants.get(tenant)?.noisy)
        .map(([, count]) => count),
    );
    for (const [tenant, state] of this.#tenants) {
      const backlog = (visible.get(tenant)?.length ?? 0) > 0;
      if (flagged.has(tenant)) state.noisy = true;
      else if (
        state.noisy &&
        backlog &&
        now - state.lastSentAt < fair.quietAfterMs &&
        (inFlight.get(tenant) ?? 0) > quietInFlight
      ) {
        flagged.add(tenant);
      } else state.noisy = false;
    }
    return flagged;
  }

  /** Milliseconds of consumer processing per tenant within the window, including messages being processed now. */
  #processingTime(now: number): Map<string, number> {
    const from = now - this.#fairness.processingWindowMs;
    const totals = new Map<string, number>();
    for (const [tenant, state] of this.#tenants) {
      state.processed = state.processed.filter(([end]) => end > from);
      if (state.processed.length === 0 && !state.noisy && state.lastSentAt <= from) {
        this.#tenants.delete(tenant);
        continue;
      }
      let total = 0;
      for (const [end, duration] of state.processed) total += end - Math.max(end - duration, from);
      if (total > 0) totals.set(tenant, total);
    }
    for (const message of this.#messages.values()) {
      if (message.processingSince === undefined) continue;
      const tenant = tenantOf(message);
      totals.set(tenant, (totals.get(tenant) ?? 0) + now - Math.max(message.processingSince, from));
    }
    return totals;
  }

  #endProcessing(message: StoredMessage, at: number) {
    if (message.processingSince === undefined) return;
    const duration = Math.max(0, at - message.processingSince);
    message.processingSince = undefined;
    this.#tenant(tenantOf(message)).processed.push([at, duration]);
  }

  #tenant(tenant: string): TenantState {
    let state = this.#tenants.get(tenant);
    if (!state) {
      state = { lastSentAt: this.#now(), noisy: false, processed: [] };
      this.#tenants.set(tenant, state);
    }
    return state;
  }

  /** The messages held now (visible or not), with their visibility, for tests that trace where a job went. */
  held(): { body: string; visibleAt: number; receiveCount: number }[] {
    return [...this.#messages.values()].map(({ body, visibleAt, receiveCount }) => ({ body, visibleAt, receiveCount }));
  }

  /** Deletes a message; a stale receipt handle (the message was received again since) is ignored, as in SQS. */
  delete(receiptHandle: string): void {
    const messageId = receiptHandle.split(':')[0]!;
    const message = this.#messages.get(messageId);
    if (message?.receiptHandle !== receiptHandle) return;
    this.#endProcessing(message, this.#now());
    this.#messages.delete(messageId);
  }

  changeVisibility(receiptHandle: string, seconds: number): void {
    const message = this.#messages.get(receiptHandle.split(':')[0]!);
    if (message?.receiptHandle !== receiptHandle) return;
    this.#endProcessing(message, this.#now());
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

  /** A message that failed too often on its source queue, with its original timestamps, receive count and group. */
  #deadLetter(message: StoredMessage) {
    const messageId = randomUUID();
    this.#messages.set(messageId, {
      messageId,
      body: message.body,
      groupId: message.groupId,
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
        ...(message.groupId === undefined ? {} : { MessageGroupId: message.groupId }),
      },
      messageAttributes: {},
      md5OfBody: createHash('md5').update(message.body).digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: this.arn,
      awsRegion: 'local',
    };
  }
}

/** The fair-queue tenant: the MessageGroupId, or the message itself when it has none. */
function tenantOf(message: StoredMessage): string {
  return message.groupId ?? `message:${message.messageId}`;
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
