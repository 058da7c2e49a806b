import { createHmac } from 'node:crypto';

export interface WebhookSettings {
  /** Read at send time: the local stack sets it after the simulator is listening. */
  webhookUrl?: string;
  appSecret: string;
  attempts: number;
  retryDelayMs: number;
}

export interface WebhookDelivery {
  field: string;
  /** The exact bytes that were signed and sent. */
  rawBody: string;
  /** 0 for the original, 1… for replays scripted with `duplicates`. */
  replay: number;
  state: 'pending' | 'delivered' | 'failed' | 'dropped';
  attempts: number;
  lastStatus?: number;
  lastError?: string;
}

const DELIVERY_TIMEOUT_MS = 5_000;

/**
 * Sends Meta-signed notifications after a delay and retries failed deliveries with a doubling backoff, as Meta does
 * (over 7 days there; a few tries here). Every timer is unref'd and cancelled by `cancel()`, so nothing outlives it.
 */
export class WebhookSender {
  readonly log: WebhookDelivery[] = [];
  /** Extra copies of every notification that follows (Meta's at-least-once delivery). */
  duplicates = 0;
  #pending = new Set<Promise<void>>();
  #timers = new Set<{ timer: NodeJS.Timeout; resolve: (elapsed: boolean) => void }>();
  #abort = new AbortController();

  constructor(private readonly settings: () => WebhookSettings) {}

  /**
   * `onDue` runs when the delay has elapsed, right before the first delivery (e.g. to move a message's status). A
   * `payload` given as a function is built then, so what is added to it meanwhile travels with it.
   */
  send(field: string, payload: unknown, delayMs: number, onDue?: () => void): void {
    const copies = this.duplicates;
    const run = (async () => {
      if (!(await this.#sleep(delayMs))) return;
      onDue?.();
      const rawBody = metaJson(typeof payload === 'function' ? payload() : payload);
      for (let replay = 0; replay <= copies; replay++) await this.#deliver({ field, rawBody, replay });
    })();
    this.#pending.add(run);
    void run.finally(() => this.#pending.delete(run));
  }

  get pendingCount(): number {
    return this.#pending.size;
  }

  /** Resolves once no notification is waiting or in flight, including ones scheduled meanwhile. */
  async flush(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  /** Drops every scheduled notification and aborts deliveries in flight. */
  async cancel(): Promise<void> {
    for (const entry of this.#timers) {
      clearTimeout(entry.timer);
      entry.resolve(false);
    }
    this.#timers.clear();
    this.#abort.abort();
    await this.flush();
    this.#abort = new AbortController();
  }

  async #deliver(item: Pick<WebhookDelivery, 'field' | 'rawBody' | 'replay'>): Promise<void> {
    const settings = this.settings();
    const delivery: WebhookDelivery = { ...item, state: 'pending', attempts: 0 };
    this.log.push(delivery);
    if (!settings.webhookUrl) {
      delivery.state = 'dropped';
      delivery.lastError = 'no webhookUrl configured';
      return;
    }
    const signature = `sha256=${createHmac('sha256', settings.appSecret).update(item.rawBody, 'utf8').digest('hex')}`;
    for (let attempt = 1; attempt <= settings.attempts; attempt++) {
      if (attempt > 1 && !(await this.#sleep(settings.retryDelayMs * 2 ** (attempt - 2)))) break;
      delivery.attempts = attempt;
      try {
        const response = await fetch(settings.webhookUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
          body: item.rawBody,
          redirect: 'manual',
          signal: AbortSignal.any([this.#abort.signal, AbortSignal.timeout(DELIVERY_TIMEOUT_MS)]),
        });
        await response.body?.cancel().catch(() => undefined);
        delivery.lastStatus = response.status;
        delivery.lastError = undefined;
        if (response.ok) {
          delivery.state = 'delivered';
          return;
        }
      } catch (error) {
        delivery.lastError = (error as Error).message;
      }
      if (this.#abort.signal.aborted) break;
    }
    delivery.state = this.#abort.signal.aborted ? 'dropped' : 'failed';
  }

  /** Resolves true when the delay elapsed, false when cancelled. */
  #sleep(ms: number): Promise<boolean> {
    if (this.#abort.signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          this.#timers.delete(entry);
          resolve(true);
        }, ms),
        resolve,
      };
      entry.timer.unref();
      this.#timers.add(entry);
    });
  }
}

/** JSON as Meta writes it: non-ASCII characters escaped as \uXXXX, so the signed bytes are pure ASCII. */
export function metaJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
