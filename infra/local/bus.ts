import { randomUUID } from 'node:crypto';
import type { EventBridgeEvent } from 'aws-lambda';
import { BUS_RULES } from '#infra/aws/functions';
import type { BusRule } from '#shared/events/catalog';
import { matchesPattern } from '#shared/events/pattern';
import type { LocalQueue } from './queue.ts';

export type BusEvent = EventBridgeEvent<string, Record<string, unknown>>;

export interface PutEventsEntry {
  Source?: string;
  DetailType?: string;
  Detail?: string;
  Resources?: string[];
  EventBusName?: string;
  Time?: string | number;
}

/**
 * The in-process event bus: PutEvents entries become EventBridge events, and every rule of shared/events whose
 * pattern matches sends the event to its target queue. Published events are kept in order for tests.
 */
export class LocalBus {
  readonly published: BusEvent[] = [];
  #listeners = new Set<(event: BusEvent) => void>();

  constructor(
    private readonly queues: Map<string, LocalQueue>,
    private readonly rules: readonly BusRule[] = BUS_RULES,
  ) {}

  put(entries: PutEventsEntry[]): { EventId?: string; ErrorCode?: string; ErrorMessage?: string }[] {
    return entries.map((entry) => {
      let detail: Record<string, unknown>;
      try {
        detail = JSON.parse(entry.Detail ?? '{}');
      } catch {
        return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is not valid JSON' };
      }
      if (!entry.Source || !entry.DetailType) {
        return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Source and DetailType are required' };
      }
      const event: BusEvent = {
        version: '0',
        id: randomUUID(),
        'detail-type': entry.DetailType,
        source: entry.Source,
        account: '000000000000',
        time: new Date(entry.Time ?? Date.now()).toISOString(),
        region: 'local',
        resources: entry.Resources ?? [],
        detail,
      };
      this.published.push(event);
      for (const listener of this.#listeners) listener(event);
      for (const rule of this.rules) {
        if (matchesPattern(rule.pattern, event as unknown as Record<string, unknown>)) {
          // As EventBridge's SQS target: no MessageGroupId of the event's own (the consumer regroups it).
          this.queues.get(rule.targetQueue)?.send(JSON.stringify(event), 0);
        }
      }
      return { EventId: event.id };
    });
  }

  onEvent(listener: (event: BusEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
