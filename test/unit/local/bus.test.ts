import { describe, expect, it } from 'vitest';
import { BUS_RULES } from '#infra/aws/functions';
import { LocalBus } from '#infra/local/bus';
import { LocalQueue } from '#infra/local/queue';

describe('LocalBus', () => {
  it("sends each domain event to the dispatcher's queue as EventBridge's SQS target does: without a message group of its own (CONTRACT §22)", () => {
    const queue = new LocalQueue('webhook-deliveries', { visibilityTimeoutSeconds: 60 });
    const bus = new LocalBus(new Map([['webhook-deliveries', queue]]), BUS_RULES);

    bus.put([
      { Source: 'wp-crm', DetailType: 'message.status', Detail: JSON.stringify({ organisation_id: 'org-a' }) },
      { Source: 'wp-crm', DetailType: 'report.completed', Detail: JSON.stringify({ organisation_id: 'org-b' }) },
    ]);

    const records = queue.receive(10);
    expect(records.map((record) => JSON.parse(record.body)['detail-type'])).toEqual([
      'message.status',
      'report.completed',
    ]);
    expect(records.map((record) => record.attributes.MessageGroupId)).toEqual([undefined, undefined]);
  });
});
