import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { EventBridgePublisher } from '#shared/adapters/eventbridge/event-publisher';
import type { DomainEvent } from '#shared/ports/event-publisher';

const eventBridge = mockClient(EventBridgeClient);

const event = (n: number): DomainEvent => ({
  eventId: `evt_${n}`,
  type: 'report.completed',
  organisationId: 'org-1',
  occurredAt: '2026-11-23T10:00:00.000Z',
  data: {
    report_id: `rpt_${n}`,
    report_type: 'CHAT',
    organisation_id: 'org-1',
    schedule_id: null,
    row_count: n,
    truncatedCells: 0,
  },
});

describe('EventBridgePublisher', () => {
  beforeEach(() => {
    eventBridge.reset();
  });

  it('fails the call when PutEvents reports FailedEntryCount=1, never a logged success (G-1)', async () => {
    eventBridge.on(PutEventsCommand).resolves({
      FailedEntryCount: 1,
      Entries: [{ EventId: 'e-1' }, { ErrorCode: 'InternalFailure', ErrorMessage: 'try again' }],
    });
    const publisher = new EventBridgePublisher(new EventBridgeClient({ region: 'eu-west-1' }), 'bus');

    const outcome = publisher.publish([event(1), event(2)]);

    await expect(outcome).rejects.toThrow(/PutEvents failed for 1 entries: InternalFailure/);
  });

  it('sends at most 10 entries per PutEvents and stops at the first failed batch', async () => {
    eventBridge
      .on(PutEventsCommand)
      .resolvesOnce({ FailedEntryCount: 0, Entries: [] })
      .resolvesOnce({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'ThrottlingException' }] });
    const publisher = new EventBridgePublisher(new EventBridgeClient({ region: 'eu-west-1' }), 'bus');

    const outcome = publisher.publish(Array.from({ length: 25 }, (_, n) => event(n)));

    await expect(outcome).rejects.toThrow(/ThrottlingException/);
    const calls = eventBridge.commandCalls(PutEventsCommand);
    expect(calls.map((call) => call.args[0].input.Entries?.length)).toEqual([10, 10]);
  });
});
